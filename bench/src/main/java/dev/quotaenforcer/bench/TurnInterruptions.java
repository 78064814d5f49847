package dev.quotaenforcer.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import org.apache.kafka.streams.KafkaStreams;

/**
 * What held up a setup's requests besides its own work, from cumulative counters: the garbage
 * collections of the whole JVM (the gateway client and every application in it stop for each) and
 * their time, and the records the application's producers sent again after the broker refused them
 * (under exactly-once, a transaction's first records refused with CONCURRENT_TRANSACTIONS until the
 * last commit's markers are written, each retry after the producer's back-off). Beside them, the
 * time the JVM's JIT compilers spent compiling: on two cores, their threads take cores from the rest.
 */
record TurnInterruptions(double collections, double collectionMs, double retriedRecords, double compilingMs) {

    /** The totals so far: of this JVM's collectors, and of every producer of {@code streams}. */
    static TurnInterruptions of(KafkaStreams streams) {
        long collections = 0;
        long collectionMs = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            // -1 where a collector cannot tell.
            collections += Math.max(0, collector.getCollectionCount());
            collectionMs += Math.max(0, collector.getCollectionTime());
        }
        return new TurnInterruptions(collections, collectionMs,
                ThreadTimes.sum(streams.metrics(), "producer-metrics", "record-retry-total"),
                ThreadTimes.compilingSoFar() / 1e6);
    }

    TurnInterruptions since(TurnInterruptions before) {
        return new TurnInterruptions(collections - before.collections, collectionMs - before.collectionMs,
                retriedRecords - before.retriedRecords, compilingMs - before.compilingMs);
    }

    TurnInterruptions plus(TurnInterruptions other) {
        return new TurnInterruptions(collections + other.collections, collectionMs + other.collectionMs,
                retriedRecords + other.retriedRecords, compilingMs + other.compilingMs);
    }
}

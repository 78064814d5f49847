package dev.quotaenforcer.topology;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the changes a catalog's loader made to its global store, so that a stream thread may keep
 * what it read from the store for as long as the count stands: a key's assignment and its plan are
 * looked up per decision, and the stores' lookups (the key serialized, a sorted map walked or RocksDB
 * called, the value copied back) cost more than the rest of finding the plan. Restores count too:
 * {@code StreamsBuilder#addGlobalStore} has Kafka Streams restore the store through the loader, record by record.
 */
final class CatalogChanges {

    private final AtomicLong count = new AtomicLong();

    /** Called by the loader after each write to the store, so a count read before a lookup is never newer than what it found. */
    void changed() {
        count.incrementAndGet();
    }

    long count() {
        return count.get();
    }
}

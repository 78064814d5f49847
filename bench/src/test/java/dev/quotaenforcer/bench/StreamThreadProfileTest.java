package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which threads' samples the throughput profile counts, and the area each sample is charged to. */
class StreamThreadProfileTest {

    @Test
    void countsTheApplicationsStreamThreadsNotTheirProducersNetworkThreadsNorAnotherApplications() {
        assertTrue(StreamThreadProfile.isStreamThread("bench-enforcer-exactly-once-v2-e09c-StreamThread-1",
                "bench-enforcer-exactly-once-v2"));
        assertFalse(StreamThreadProfile.isStreamThread(
                "kafka-producer-network-thread | bench-enforcer-exactly-once-v2-e09c-StreamThread-1-producer",
                "bench-enforcer-exactly-once-v2"));
        assertFalse(StreamThreadProfile.isStreamThread("bench-copy-exactly-once-v2-20da-StreamThread-1",
                "bench-enforcer-exactly-once-v2"));
        assertFalse(StreamThreadProfile.isStreamThread(null, "bench-enforcer-exactly-once-v2"));
    }

    @Test
    void aProducersRecordWritesAreChargedToSendingNotToTheCodeThatPolls() {
        assertEquals("Kafka Streams sending (record collector, producer)", StreamThreadProfile.areaOf(List.of(
                "org.apache.kafka.common.utils.ByteUtils", "org.apache.kafka.common.record.DefaultRecord",
                "org.apache.kafka.common.record.MemoryRecordsBuilder",
                "org.apache.kafka.clients.producer.internals.RecordAccumulator",
                "org.apache.kafka.clients.producer.KafkaProducer",
                "org.apache.kafka.streams.processor.internals.RecordCollectorImpl",
                "dev.quotaenforcer.topology.OutcomePublisher")));
    }

    @Test
    void jdkCodeIsChargedToTheEnforcerClassThatCalledIt() {
        assertEquals("write-back stores (changes held until the commit)", StreamThreadProfile.areaOf(List.of(
                "java.util.concurrent.ConcurrentHashMap", "dev.quotaenforcer.topology.WriteBackStore",
                "dev.quotaenforcer.topology.QuotaProcessor")));
        assertEquals("plans and key assignments in memory", StreamThreadProfile.areaOf(List.of(
                "java.util.HashMap", "dev.quotaenforcer.topology.AssignmentCache",
                "dev.quotaenforcer.topology.QuotaProcessor")));
        assertEquals("other enforcer code", StreamThreadProfile.areaOf(List.of(
                "java.util.HashMap", "dev.quotaenforcer.topology.QuotaProcessor")));
        assertEquals("JVM and JDK only", StreamThreadProfile.areaOf(List.of("java.lang.Thread")));
    }

    @Test
    void aCollapsedStackInsideRocksDbsNativeCodeIsChargedToTheStateStoreThatCalledIt() {
        Map<String, Long> counts = new HashMap<>();
        StreamThreadProfile.countCollapsed("[bench-enforcer-exactly-once-v2-e09c-StreamThread-1 tid=5];java/lang/Thread.run;"
                + "org/apache/kafka/streams/processor/internals/StreamThread.run;"
                + "dev/quotaenforcer/topology/QuotaProcessor.decide;"
                + "dev/quotaenforcer/topology/AssignmentCache.planId;"
                + "org/apache/kafka/streams/state/internals/MeteredKeyValueStore.get;org/rocksdb/RocksDB.get;"
                + "Java_org_rocksdb_RocksDB_get__J_3BIIJ;rocksdb::DBImpl::Get;/usr/lib/x86_64-linux-gnu/libgcc_s.so.1 7",
                "bench-enforcer-exactly-once-v2", counts);
        StreamThreadProfile.countCollapsed("[bench-enforcer-exactly-once-v2-e09c-StreamThread-1 tid=5];java/lang/Thread.run;"
                + "dev/quotaenforcer/topology/DecisionStats.decided;clock_gettime@@GLIBC_2.17;[vdso] 3",
                "bench-enforcer-exactly-once-v2", counts);
        StreamThreadProfile.countCollapsed("[bench-enforcer-exactly-once-v2-e09c-StreamThread-1 tid=5];"
                + "dev/quotaenforcer/topology/WriteBackStore$$Lambda$2993.0x00007f1bb88efa40.accept;"
                + "java/util/concurrent/ConcurrentHashMap.putVal 2", "bench-enforcer-exactly-once-v2", counts);
        StreamThreadProfile.countCollapsed("[bench-enforcer-exactly-once-v2-e09c-StreamThread-1 tid=5];"
                + "asm_sysvec_reschedule_ipi_[k];schedule_[k] 1", "bench-enforcer-exactly-once-v2", counts);

        assertEquals(Map.of("state stores (RocksDB, in-memory, changelogging)", 7L,
                "publishing outcomes (and the decision meters)", 3L,
                "write-back stores (changes held until the commit)", 2L,
                "JVM and JDK only", 1L), counts);
    }

    @Test
    void aCollapsedStackOfAnotherThreadIsNotCounted() {
        Map<String, Long> counts = new HashMap<>();
        StreamThreadProfile.countCollapsed("[kafka-producer-network-thread | "
                + "bench-enforcer-exactly-once-v2-e09c-StreamThread-1-producer tid=6];"
                + "org/apache/kafka/clients/producer/internals/Sender.run 5", "bench-enforcer-exactly-once-v2", counts);
        StreamThreadProfile.countCollapsed("[bench-copy-exactly-once-v2-20da-StreamThread-1 tid=7];java/lang/Thread.run 4",
                "bench-enforcer-exactly-once-v2", counts);

        assertEquals(Map.of(), counts);
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records that once put the enforcer into ERROR: an event time far outside the clock's range, a huge key
 * on an unreadable record, a huge header on a valid one. Each is answered or dead-lettered, and the
 * valid request after it is decided.
 */
@ExtendWith(KafkaBroker.class)
class OversizeAndOutOfRangeRecordsIT {

    private static final int TWO_MIB = 2 * 1024 * 1024;

    @TempDir
    Path stateDir;

    /** An event time outside 1970..9999 is an invalid field, answered INVALID_REQUEST, never decided in the engine. */
    @Test
    void requestWithEpochMillisBelowMinusTwoToTheSixtySecondIsAnsweredAndTheStreamKeepsRunning(TestCluster cluster)
            throws Exception {
        try (Enforcer enforcer = startEnforcer(cluster)) {
            cluster.send(List.of(new ProducerRecord<>(cluster.topics().requests().name(), TestCluster.bytes("k-1"),
                    TestCluster.bytes("""
                            {"requestId": "r-ancient", "apiKey": "k-1", "cost": 1, "timestamp": -4611686018427387905}"""))));
            cluster.send(List.of(TestCluster.request(cluster.topics(), "k-1", "r-ok", 1, "2026-01-05T12:00:01Z")));

            awaitProgressOrFailure(enforcer, () -> decided(enforcer) >= 2);
            assertFalse(enforcer.failed(), "the enforcer stopped on {\"timestamp\": -4611686018427387905}");
            List<Decision> decisions = cluster.awaitDecisions(2);
            assertEquals(List.of("r-ancient", "r-ok"), decisions.stream().map(Decision::requestId).sorted().toList());
            assertTrue(decisions.stream().anyMatch(d -> d.requestId().equals("r-ok") && d.allowed()));
        }
    }

    /** The dead letter of an unreadable record cuts its key as it cuts its value, so the broker accepts it. */
    @Test
    void unreadableRecordWithATwoMebibyteKeyIsDeadLetteredAndTheStreamKeepsRunning(TestCluster cluster) throws Exception {
        try (Enforcer enforcer = startEnforcer(cluster)) {
            cluster.send(List.of(new ProducerRecord<>(cluster.topics().requests().name(),
                    TestCluster.bytes("k".repeat(TWO_MIB)), TestCluster.bytes("not json"))));
            cluster.send(List.of(TestCluster.request(cluster.topics(), "k-1", "r-ok", 1, "2026-01-05T12:00:01Z")));

            awaitProgressOrFailure(enforcer, () -> enforcer.stats().deadLetters() >= 1 && decided(enforcer) >= 1);
            assertFalse(enforcer.failed(), "the enforcer stopped on an unreadable record with a 2 MiB key");
            cluster.awaitRecords(cluster.topics().deadLetter(), 1);
            assertTrue(cluster.awaitDecisions(1).get(0).allowed());
        }
    }

    /** Gateways' headers are not copied to the outputs, so a huge one cannot make a decision the broker refuses. */
    @Test
    void validRequestWithATwoMebibyteHeaderIsAnsweredAndTheStreamKeepsRunning(TestCluster cluster) throws Exception {
        try (Enforcer enforcer = startEnforcer(cluster)) {
            ProducerRecord<byte[], byte[]> withHeader =
                    TestCluster.request(cluster.topics(), "k-1", "r-header", 1, "2026-01-05T12:00:00Z");
            withHeader.headers().add("trace", new byte[TWO_MIB]);
            cluster.send(List.of(withHeader));
            cluster.send(List.of(TestCluster.request(cluster.topics(), "k-1", "r-ok", 1, "2026-01-05T12:00:01Z")));

            awaitProgressOrFailure(enforcer, () -> decided(enforcer) >= 2);
            assertFalse(enforcer.failed(), "the enforcer stopped on a valid request with a 2 MiB header");
            List<Decision> decisions = cluster.awaitDecisions(2);
            assertEquals(List.of("r-header", "r-ok"), decisions.stream().map(Decision::requestId).sorted().toList());
        }
    }

    private Enforcer startEnforcer(TestCluster cluster) throws InterruptedException {
        cluster.createTopics(1);
        cluster.putPlan("""
                {"id": "basic", "quota": {"name": "hourly", "limit": 100, "window": "PT1H"}}""");
        cluster.assign("k-1", "basic");
        Enforcer enforcer = cluster.startEnforcer("a", stateDir);
        TestCluster.awaitAssignment(enforcer, "k-1", "basic");
        return enforcer;
    }

    /** Returns once {@code progress} holds or the enforcer has failed, whichever comes first. */
    private static void awaitProgressOrFailure(Enforcer enforcer, BooleanSupplier progress) throws InterruptedException {
        TestCluster.awaitCondition("the enforcer made progress or failed", () -> enforcer.failed() || progress.getAsBoolean(),
                Duration.ofSeconds(60));
    }

    private static long decided(Enforcer enforcer) {
        return enforcer.stats().decided();
    }
}

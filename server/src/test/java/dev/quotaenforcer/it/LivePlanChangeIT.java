package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Plans changed while the enforcer runs: upgrades keep the used count, invalid versions never replace the last valid one. */
@ExtendWith(KafkaBroker.class)
class LivePlanChangeIT {

    private static final String BASIC_10 = """
            {"id": "basic", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 10, "window": "PT1H"}}""";
    private static final String BASIC_50 = """
            {"id": "basic", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 50, "window": "PT1H"}}""";
    private static final String BASIC_ZERO_WINDOW = """
            {"id": "basic", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 50, "window": "PT0S"}}""";
    private static final Instant HOUR = Instant.parse("2026-01-05T12:00:00Z");
    private static final Duration SWITCH_WAIT = Duration.ofSeconds(30);

    @TempDir
    Path stateDir;

    @Test
    void upgradedPlanTakesEffectWhileRunningAndKeepsTheUsedCountOfTheSameQuota(TestCluster cluster) throws Exception {
        cluster.createTopics(2);
        cluster.putPlan(BASIC_10);
        cluster.assign("k-1", "basic");

        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir)) {
            TestCluster.awaitAssignment(enforcer, "k-1", "basic");
            List<ProducerRecord<byte[], byte[]>> used = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                used.add(request(cluster, "used-" + i, i));
            }
            cluster.send(used);
            List<Decision> before = cluster.awaitDecisions(8);
            assertTrue(before.stream().allMatch(d -> d.allowed() && d.limit() == 10), "8 of 10 allowed: " + before);
            assertEquals(2, byId(before).get("used-7").remaining());

            cluster.putPlan(BASIC_50);

            // The catalog is a global table updated after the enforcer commits the validated plan, so
            // probe one request at a time until a decision shows the new limit.
            long deadline = System.nanoTime() + SWITCH_WAIT.toNanos();
            Decision switched = null;
            List<Decision> decisions = before;
            for (int probe = 0; switched == null; probe++) {
                assertTrue(System.nanoTime() < deadline, "plan upgrade not in effect within " + SWITCH_WAIT + ": " + decisions);
                String id = "probe-" + probe;
                cluster.send(List.of(request(cluster, id, 10 + probe)));
                decisions = cluster.awaitDecisions(read -> read.stream().anyMatch(d -> d.requestId().equals(id)));
                Decision decision = byId(decisions).get(id);
                if (decision.limit() == 50) {
                    switched = decision;
                } else {
                    assertEquals(10, decision.limit(), "a probe is decided by one version or the other: " + decision);
                }
            }

            long allowedSoFar = decisions.stream().filter(Decision::allowed).count();
            assertTrue(switched.allowed(), "room left under the upgraded limit: " + switched);
            assertEquals(Reason.OK, switched.reason());
            assertEquals("hourly", switched.policy());
            assertEquals(50 - allowedSoFar, switched.remaining(),
                    "the upgrade kept the count: 8 used before it, plus the probes allowed since; decisions: " + decisions);
            assertTrue(allowedSoFar >= 9, "the 8 earlier requests and the switching probe are counted: " + decisions);

            List<ProducerRecord<byte[], byte[]>> after = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                after.add(request(cluster, "after-" + i, 40 + i));
            }
            cluster.send(after);
            Decision last = byId(cluster.awaitDecisions(read -> read.stream().anyMatch(d -> d.requestId().equals("after-2"))))
                    .get("after-2");
            assertTrue(last.allowed());
            assertEquals(50, last.limit());
            assertEquals(50 - allowedSoFar - 3, last.remaining(), "later requests keep counting against the kept total");
            assertFalse(enforcer.failed());
        }
    }

    @Test
    void invalidPlanVersionIsDeadLetteredWithItsFieldAndValueAndThePreviousVersionStaysInForce(TestCluster cluster)
            throws Exception {
        cluster.createTopics(2);
        cluster.putPlan(BASIC_10);
        cluster.assign("k-1", "basic");

        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir)) {
            TestCluster.awaitAssignment(enforcer, "k-1", "basic");
            List<ProducerRecord<byte[], byte[]>> first = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                first.add(request(cluster, "first-" + i, i));
            }
            cluster.send(first);
            assertTrue(cluster.awaitDecisions(8).stream().allMatch(d -> d.allowed() && d.limit() == 10));

            // Sent as raw bytes: the catalog client would refuse it before it reached the topic.
            byte[] invalid = BASIC_ZERO_WINDOW.getBytes(StandardCharsets.UTF_8);
            RecordMetadata sent = cluster.sendAndLocate(List.of(new ProducerRecord<>(cluster.topics().plans().name(),
                    TestCluster.bytes("basic"), invalid))).get(0);

            ConsumerRecord<byte[], byte[]> dead = cluster.awaitRecords(cluster.topics().deadLetter(), 1).get(0);
            assertEquals("basic", new String(dead.key(), StandardCharsets.UTF_8));
            assertEquals(BASIC_ZERO_WINDOW, new String(dead.value(), StandardCharsets.UTF_8), "the original value");
            assertEquals("INVALID_PLAN", header(dead, "dlq.error"));
            assertEquals("plan \"basic\": quota.window: \"PT0S\" must be a whole number of seconds from PT1S to PT744H",
                    header(dead, "dlq.reason"));
            assertEquals(cluster.topics().plans().name(), header(dead, "dlq.source.topic"));
            assertEquals(Integer.toString(sent.partition()), header(dead, "dlq.source.partition"));
            assertEquals(Long.toString(sent.offset()), header(dead, "dlq.source.offset"));

            // The dead letter is committed in the same transaction as the validator's output, so the
            // catalog now holds everything the invalid version produced: nothing.
            List<ConsumerRecord<String, byte[]>> catalog = cluster.readAll(cluster.topics().planCatalog());
            assertEquals(1, catalog.size(), "only the first version reached the catalog");
            assertEquals(BASIC_10, new String(catalog.get(0).value(), StandardCharsets.UTF_8));

            List<ProducerRecord<byte[], byte[]>> second = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                second.add(request(cluster, "second-" + i, 20 + i));
            }
            cluster.send(second);
            Map<String, Decision> decisions = byId(cluster.awaitDecisions(12));
            assertEquals(12, decisions.size());
            assertTrue(decisions.get("second-0").allowed());
            assertTrue(decisions.get("second-1").allowed());
            assertEquals(0, decisions.get("second-1").remaining());
            Decision denied = decisions.get("second-2");
            assertFalse(denied.allowed(), "the previous limit of 10 still holds: " + denied);
            assertEquals(Reason.QUOTA_EXCEEDED, denied.reason());
            assertEquals(10, denied.limit());
            assertFalse(decisions.get("second-3").allowed());
            assertFalse(enforcer.failed());
        }
    }

    private static ProducerRecord<byte[], byte[]> request(TestCluster cluster, String requestId, int secondsIntoHour) {
        return TestCluster.request(cluster.topics(), "k-1", requestId, 1, HOUR.plusSeconds(secondsIntoHour).toString());
    }

    private static Map<String, Decision> byId(List<Decision> decisions) {
        return decisions.stream().collect(Collectors.toMap(Decision::requestId, Function.identity()));
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}

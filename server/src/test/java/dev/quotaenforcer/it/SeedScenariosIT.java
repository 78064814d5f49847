package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.plan.PolicyKind;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The seed articles' scenarios end to end on a real broker, read back with a plain consumer. */
@ExtendWith(KafkaBroker.class)
class SeedScenariosIT {

    @TempDir
    Path stateDir;

    @Test
    void boundaryBurstIsDecidedPerAlgorithmWithEveryFieldFilledIn(TestCluster cluster) throws Exception {
        cluster.createTopics(3);
        cluster.putPlan("""
                {"id": "sliding", "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 100, "window": "PT1M"}],
                 "quota": {"name": "hourly", "limit": 1000, "window": "PT1H"}}""");
        cluster.putPlan("""
                {"id": "fixed", "rateLimits": [{"name": "per-minute", "algorithm": "fixed-window", "limit": 100, "window": "PT1M"}]}""");
        cluster.assign("k-sliding", "sliding");
        cluster.assign("k-fixed", "fixed");

        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir)) {
            TestCluster.awaitAssignment(enforcer, "k-sliding", "sliding");
            TestCluster.awaitAssignment(enforcer, "k-fixed", "fixed");
            List<ProducerRecord<byte[], byte[]>> burst = new ArrayList<>();
            for (String key : List.of("k-sliding", "k-fixed")) {
                for (int i = 0; i < 100; i++) {
                    burst.add(TestCluster.request(cluster.topics(), key, key + "-a" + i, 1, "2026-01-05T12:00:59Z"));
                }
                for (int i = 0; i < 100; i++) {
                    burst.add(TestCluster.request(cluster.topics(), key, key + "-b" + i, 1, "2026-01-05T12:01:00Z"));
                }
            }
            cluster.send(burst);

            Map<String, Decision> decisions = cluster.awaitDecisions(400).stream()
                    .collect(Collectors.toMap(Decision::requestId, Function.identity()));
            assertEquals(400, decisions.size(), "one decision per request");
            assertEquals(200, count(decisions, "k-fixed", true), "fixed window admits both batches");
            assertEquals(100, count(decisions, "k-sliding", true), "sliding window denies the second batch");

            Decision allowed = decisions.get("k-sliding-a99");
            assertTrue(allowed.allowed());
            assertEquals(Reason.OK, allowed.reason());
            assertEquals("k-sliding", allowed.apiKey());
            assertEquals("sliding", allowed.plan());
            assertEquals("per-minute", allowed.policy());
            assertEquals(100, allowed.limit());
            assertEquals(0, allowed.remaining());
            assertEquals(0, allowed.retryAfterSeconds());
            assertEquals(Instant.parse("2026-01-05T12:00:59Z"), allowed.eventTime());

            Decision denied = decisions.get("k-sliding-b0");
            assertFalse(denied.allowed());
            assertEquals(Reason.RATE_LIMITED, denied.reason());
            assertEquals("per-minute", denied.policy());
            assertEquals(1, denied.retryAfterSeconds());
            assertEquals(60, denied.resetSeconds());
            assertEquals(Map.of("Retry-After", "1", "RateLimit-Limit", "100", "RateLimit-Remaining", "0",
                    "RateLimit-Reset", "60", "RateLimit-Policy", "\"per-minute\";q=100;w=60, \"hourly\";q=1000;w=3600",
                    "RateLimit", "\"per-minute\";r=0;t=60"), denied.headers());

            List<QuotaExceeded> exceeded = cluster.awaitExceeded(1);
            assertEquals(1, exceeded.size(), "one event for the run of denials, not one per denied request");
            QuotaExceeded event = exceeded.get(0);
            assertEquals("k-sliding", event.apiKey());
            assertEquals("sliding", event.plan());
            assertEquals("per-minute", event.policy());
            assertEquals(PolicyKind.RATE, event.kind());
            assertEquals(100, event.limit());
            assertEquals("k-sliding-b0", event.requestId());
            assertEquals(Instant.parse("2026-01-05T12:01:00Z"), event.time());
            assertEquals(Instant.parse("2026-01-05T12:00:00Z"), event.windowStart());
            assertEquals(Instant.parse("2026-01-05T12:01:00Z"), event.windowEnd());
        }
    }

    @Test
    void tokenBucketSeedTraceHoldsOnTheBroker(TestCluster cluster) throws Exception {
        cluster.createTopics(2);
        cluster.putPlan("""
                {"id": "bucket", "rateLimits": [{"name": "burst", "algorithm": "token-bucket", "capacity": 10, "refillPerSecond": 2}]}""");
        cluster.assign("k-1", "bucket");

        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir)) {
            TestCluster.awaitAssignment(enforcer, "k-1", "bucket");
            List<ProducerRecord<byte[], byte[]>> trace = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                trace.add(TestCluster.request(cluster.topics(), "k-1", "t0-" + i, 1, "2026-01-05T12:00:00Z"));
            }
            for (int i = 0; i < 7; i++) {
                trace.add(TestCluster.request(cluster.topics(), "k-1", "t3-" + i, 1, "2026-01-05T12:00:03Z"));
            }
            cluster.send(trace);

            Map<String, Decision> decisions = cluster.awaitDecisions(18).stream()
                    .collect(Collectors.toMap(Decision::requestId, Function.identity()));
            assertTrue(decisions.get("t0-9").allowed());
            assertFalse(decisions.get("t0-10").allowed());
            assertEquals(1, decisions.get("t0-10").retryAfterSeconds());
            assertTrue(decisions.get("t3-5").allowed(), "6 tokens back after 3 s");
            assertFalse(decisions.get("t3-6").allowed());
            assertNull(cluster.awaitExceeded(2).get(0).windowStart(), "buckets have no window");
        }
    }

    private static long count(Map<String, Decision> decisions, String apiKey, boolean allowed) {
        return decisions.values().stream().filter(d -> d.apiKey().equals(apiKey) && d.allowed() == allowed).count();
    }
}

package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.limit.SlidingCounts;
import dev.quotaenforcer.limit.WindowCount;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deciding requests against plans, end to end through the topology with explicit event times. */
class QuotaTopologyTest {

    static final String FREE = """
            {"id": "free",
             "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 100, "window": "PT1M"}],
             "quota": {"name": "hourly", "limit": 1000, "window": "PT1H"}}""";

    static final String TIGHT = """
            {"id": "tight",
             "rateLimits": [{"name": "per-second", "algorithm": "fixed-window", "limit": 3, "window": "PT1S"},
                            {"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 10, "window": "PT1M"}],
             "quota": {"name": "hourly", "limit": 12, "window": "PT1H"}}""";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("free", FREE);
        enforcer.plan("tight", TIGHT);
        enforcer.assign("k-1", "free");
        enforcer.assign("k-tight", "tight");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void countsUsageInTheTaskThatDecidesWithoutRepartitioningDecisions() {
        TopologyDescription description = new QuotaTopology(new EnforcerConfig(Map.of())).build().describe();

        TopologyDescription.Subtopology deciding = description.subtopologies().stream()
                .filter(sub -> sub.nodes().stream().anyMatch(node -> node.name().equals("quota-decider")))
                .findFirst().orElseThrow();
        assertTrue(deciding.nodes().stream().anyMatch(node -> node instanceof TopologyDescription.Processor processor
                        && node.name().equals("quota-decider") && processor.stores().contains(QuotaTopology.STATE_STORE)),
                "usage per key and hour is counted into the key's entry by the processor that decides: " + deciding);
        assertTrue(description.subtopologies().stream().flatMap(sub -> sub.nodes().stream())
                .filter(node -> node instanceof TopologyDescription.Source)
                .noneMatch(node -> ((TopologyDescription.Source) node).topicSet().contains("usage-repartition")),
                "decisions are not written out and read back to be counted: " + description);
    }

    @Test
    void allowsARequestWithinItsPlanAndReportsTheBindingPolicy() {
        Decision decision = enforcer.decide("k-1", "r-1", at(0, 59));

        assertTrue(decision.allowed());
        assertEquals(Reason.OK, decision.reason());
        assertEquals("r-1", decision.requestId());
        assertEquals("k-1", decision.apiKey());
        assertEquals("free", decision.plan());
        assertEquals("per-minute", decision.policy());
        assertEquals(100, decision.limit());
        assertEquals(99, decision.remaining());
        assertEquals(0, decision.retryAfterSeconds());
        assertEquals(0, decision.delayMs());
        assertEquals(at(0, 59), decision.eventTime());
        assertEquals(Map.of(
                "RateLimit-Limit", "100",
                "RateLimit-Remaining", "99",
                "RateLimit-Reset", "61",
                "RateLimit-Policy", "\"per-minute\";q=100;w=60, \"hourly\";q=1000;w=3600",
                "RateLimit", "\"per-minute\";r=99;t=61"), decision.headers());
    }

    @Test
    void decisionIsKeyedByApiKeyAndKeepsTheRequestRecordTimestamp() {
        enforcer.send("k-1", "r-1", at(0, 5));

        var record = enforcer.decisionRecords().get(0);
        assertEquals("k-1", record.key());
        assertEquals(at(0, 5), record.getRecordTime());
    }

    @Test
    void deniesSecondBatchAtWindowBoundary() {
        assertEquals(100, enforcer.burst("k-1", "first", 100, at(0, 59)));
        assertEquals(0, enforcer.burst("k-1", "second", 100, at(1, 0)));
    }

    @Test
    void deniedRequestCarriesHonestRetryAfterAndHeaders() {
        enforcer.burst("k-1", "fill", 100, at(0, 59));

        Decision denied = enforcer.decide("k-1", "r-over", at(1, 0));

        assertFalse(denied.allowed());
        assertEquals(Reason.RATE_LIMITED, denied.reason());
        assertEquals("per-minute", denied.policy());
        assertEquals(0, denied.remaining());
        // 100 in the previous minute: one more fits once 1/100 of it has slid out, 0.6 s in.
        assertEquals(1, denied.retryAfterSeconds());
        assertEquals("1", denied.headers().get("Retry-After"));
        assertEquals("0", denied.headers().get("RateLimit-Remaining"));
        assertEquals(60, denied.resetSeconds(), "the previous minute stops counting at 12:02");
        assertEquals("\"per-minute\";r=0;t=60", denied.headers().get("RateLimit"));
        assertTrue(enforcer.decide("k-1", "r-retry", at(1, 1)).allowed());
    }

    @Test
    void requestIsAllowedOnlyIfEveryPolicyAllowsIt() {
        assertEquals(3, enforcer.burst("k-tight", "s0", 5, at(0, 0)), "per-second limit of 3");
        assertEquals(3, enforcer.burst("k-tight", "s1", 5, at(0, 1)));
        assertEquals(3, enforcer.burst("k-tight", "s2", 5, at(0, 2)));
        assertEquals(1, enforcer.burst("k-tight", "s3", 5, at(0, 3)), "per-minute limit of 10");
        List<Decision> later = new ArrayList<>();
        for (int minute = 2; minute < 4; minute++) {
            enforcer.send("k-tight", "m" + minute, at(minute, 0));
            later.addAll(enforcer.decisions());
        }
        assertTrue(later.get(0).allowed());
        assertTrue(later.get(1).allowed(), "12th request of the hour");
        Decision quota = enforcer.decide("k-tight", "m4", at(4, 0));
        assertFalse(quota.allowed());
        assertEquals(Reason.QUOTA_EXCEEDED, quota.reason());
        assertEquals("hourly", quota.policy());
        assertEquals(Instant.parse("2026-11-30T13:00:00Z").getEpochSecond() - at(4, 0).getEpochSecond(),
                quota.retryAfterSeconds(), "the quota resets with the calendar hour");
    }

    @Test
    void deniedRequestConsumesNothingFromAnyPolicy() {
        enforcer.burst("k-tight", "fill", 3, at(0, 0));
        // Denied by the per-second window: the minute counter and the hourly quota must not move.
        assertEquals(0, enforcer.burst("k-tight", "denied", 50, at(0, 0)));

        KeyState state = enforcer.keyState("k-tight");

        assertEquals(3, state.slots().size());
        assertEquals(3, ((WindowCount) state.slots().get(0).state()).used());
        assertEquals(3, ((SlidingCounts) state.slots().get(1).state()).current());
        assertEquals(3, ((WindowCount) state.slots().get(2).state()).used());
    }

    @Test
    void bindingPolicyOfAnAllowedRequestIsTheOneWithLeastRemaining() {
        for (int i = 0; i < 11; i++) {
            enforcer.send("k-tight", "r" + i, at(5 * i, 0));
        }
        List<Decision> decisions = enforcer.decisions();

        assertEquals("per-second", decisions.get(0).policy(), "2 left this second, 9 this minute, 11 this hour");
        Decision eleventh = decisions.get(10);
        assertEquals("hourly", eleventh.policy(), "by then the hour has 1 left");
        assertEquals(1, eleventh.remaining());
    }

    @Test
    void deniesAnUnknownApiKey() {
        Decision decision = enforcer.decide("stranger", "r-1", at(0, 1));

        assertFalse(decision.allowed());
        assertEquals(Reason.UNKNOWN_API_KEY, decision.reason());
        assertNull(decision.plan());
        assertEquals(Map.of(), decision.headers());
    }

    @Test
    void decidesAnEventOlderThanTheKeysNewestAtTheNewestTime() {
        enforcer.decide("k-1", "late-first", at(0, 30));

        Decision older = enforcer.decide("k-1", "early-second", at(0, 10));

        assertEquals(at(0, 30), older.eventTime());
        assertEquals(98, older.remaining());
    }

    @Test
    void outOfOrderEventsNeverReopenAClosedWindow() {
        enforcer.burst("k-tight", "now", 3, at(0, 5));

        // An event stamped in an earlier second is decided in the newest second, which is full.
        Decision older = enforcer.decide("k-tight", "older", at(0, 4));

        assertFalse(older.allowed());
        assertEquals("per-second", older.policy());
    }

    @Test
    void storesOneCompactValuePerApiKey() {
        enforcer.burst("k-1", "r", 42, at(0, 59));

        KeyEntry entry = enforcer.stateStore().get("k-1");
        byte[] state = entry.stateBytes();

        System.out.println("Key state for a sliding-window counter plus an hourly quota: " + state.length + " bytes, in an entry of "
                + KeyEntrySerde.write(entry).length + " bytes with the hour's usage");
        assertTrue(state.length <= 32, "state is " + state.length + " bytes");
        assertEquals(1, entry.hours().size(), "the key's usage of the hour is in the same entry");
        assertNull(enforcer.stateStore().get("stranger"));
    }

    @Test
    void replayingTheSameInputYieldsIdenticalDecisions(@TempDir Path otherStateDir) {
        List<Decision> first = replayTrace(enforcer);
        try (EnforcerDriver replay = new EnforcerDriver(otherStateDir)) {
            replay.plan("free", FREE);
            replay.plan("tight", TIGHT);
            replay.assign("k-1", "free");
            replay.assign("k-tight", "tight");

            assertEquals(first, replayTrace(replay));
        }
    }

    private static List<Decision> replayTrace(EnforcerDriver driver) {
        java.util.Random random = new java.util.Random(7);
        Instant time = at(0, 0);
        for (int i = 0; i < 400; i++) {
            time = time.plusMillis(random.nextInt(1500) - 300);
            String key = random.nextBoolean() ? "k-1" : "k-tight";
            driver.send(key, "r-" + i, 1 + random.nextInt(3), time);
        }
        return driver.decisions();
    }
}

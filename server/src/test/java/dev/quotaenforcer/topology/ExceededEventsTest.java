package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.plan.PolicyKind;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Quota-exceeded events: one when a policy starts denying, never one per denied request. */
class ExceededEventsTest {

    static final String PLAN = """
            {"id": "metered",
             "rateLimits": [{"name": "burst", "algorithm": "token-bucket", "capacity": 5, "refillPerSecond": 1},
                            {"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 8, "window": "PT1M"}],
             "quota": {"name": "hourly", "limit": 12, "window": "PT1H"}}""";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("metered", PLAN);
        enforcer.assign("k-1", "metered");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void oneEventWhenARunOfDenialsStartsNotOnePerDeniedRequest() {
        enforcer.burst("k-1", "burst", 20, at(0, 0));

        List<QuotaExceeded> events = enforcer.exceeded();

        assertEquals(1, events.size());
        QuotaExceeded event = events.get(0);
        assertEquals("k-1", event.apiKey());
        assertEquals("metered", event.plan());
        assertEquals("burst", event.policy());
        assertEquals(PolicyKind.RATE, event.kind());
        assertEquals(5, event.limit());
        assertNull(event.windowStart(), "buckets have no window");
        assertEquals("burst-5", event.requestId(), "the first denied request");
        assertEquals(at(0, 0), event.time());
    }

    @Test
    void aNewRunAfterAnAdmissionReportsAgain() {
        enforcer.burst("k-1", "first", 7, at(0, 0));
        enforcer.burst("k-1", "second", 3, at(0, 2));

        assertEquals(List.of("first-5", "second-2"), enforcer.exceeded().stream().map(QuotaExceeded::requestId).toList());
    }

    @Test
    void quotaIsReportedOncePerCalendarWindow() {
        for (int minute = 0; minute < 30; minute++) {
            enforcer.send("k-1", "m" + minute, at(minute, 0));
        }

        List<QuotaExceeded> events = enforcer.exceeded();
        assertEquals(1, events.size());
        QuotaExceeded quota = events.get(0);
        assertEquals("hourly", quota.policy());
        assertEquals(PolicyKind.QUOTA, quota.kind());
        assertEquals(12, quota.limit());
        assertEquals(Instant.parse("2026-11-30T12:00:00Z"), quota.windowStart());
        assertEquals(Instant.parse("2026-11-30T13:00:00Z"), quota.windowEnd());
        assertEquals("m12", quota.requestId());

        enforcer.send("k-1", "next-hour", at(60, 0));
        enforcer.send("k-1", "next-hour-2", at(61, 0));
        assertEquals(List.of(), enforcer.exceeded(), "a new hour, not exhausted");
    }

    @Test
    void eachDenyingPolicyReportsItsOwnRun() {
        // 5 at once empty the bucket; 3 more, 1 s apart, fill the minute's 8; the next is denied by both.
        enforcer.burst("k-1", "a", 5, at(0, 0));
        for (int i = 1; i <= 3; i++) {
            enforcer.send("k-1", "b" + i, at(0, i));
        }
        enforcer.send("k-1", "c", at(0, 3));

        List<QuotaExceeded> events = enforcer.exceeded();
        assertEquals(List.of("burst", "per-minute"), events.stream().map(QuotaExceeded::policy).toList());
        QuotaExceeded minute = events.get(1);
        assertEquals(at(-1, 3), minute.windowStart(), "a sliding window ends at the denial");
        assertEquals(at(0, 3), minute.windowEnd());
    }
}

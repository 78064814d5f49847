package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The topology end to end in TopologyTestDriver, with explicit event times. */
class QuotaTopologyTest {

    static final String FREE = """
            {"id": "free",
             "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 100, "window": "PT1M"}],
             "quota": {"name": "hourly", "limit": 1000, "window": "PT1H"}}""";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("free", FREE);
        enforcer.assign("k-1", "free");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void allowsARequestWithinItsPlanAndReportsTheBindingPolicy() {
        Decision decision = enforcer.decide("k-1", "r-1", at(0, 59));

        assertTrue(decision.allowed());
        assertEquals(Reason.OK, decision.reason());
        assertEquals("free", decision.plan());
        assertEquals("per-minute", decision.policy());
        assertEquals(100, decision.limit());
        assertEquals(99, decision.remaining());
        assertEquals(0, decision.retryAfterSeconds());
        assertEquals(at(0, 59), decision.eventTime());
        assertEquals("99", decision.headers().get("RateLimit-Remaining"));
        assertFalse(decision.headers().containsKey("Retry-After"));
    }

    @Test
    void deniesSecondBatchAtWindowBoundary() {
        assertEquals(100, enforcer.burst("k-1", "first", 100, at(0, 59)));
        assertEquals(0, enforcer.burst("k-1", "second", 100, at(1, 0)));
    }

    @Test
    void deniesAnUnknownApiKey() {
        Decision decision = enforcer.decide("stranger", "r-1", at(0, 1));

        assertFalse(decision.allowed());
        assertEquals(Reason.UNKNOWN_API_KEY, decision.reason());
    }
}

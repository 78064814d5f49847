package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.event.Reason;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The topology's meters: every decision counted, the lag timed for the first decision of each request millisecond. */
class DecisionStatsTest {

    @TempDir
    Path stateDir;

    @Test
    void countsEveryDecisionAndTimesTheLagOfTheFirstOfEachRequestMillisecond() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Instant now = at(0, 10);
        DecisionStats stats = new DecisionStats(registry, Clock.fixed(now, ZoneOffset.UTC));
        try (EnforcerDriver enforcer = new EnforcerDriver(stateDir, Map.of(), stats)) {
            enforcer.plan("free", QuotaTopologyTest.FREE);
            enforcer.assign("k-1", "free");

            Instant first = at(0, 1);
            Instant second = first.plusMillis(1);
            enforcer.send("k-1", "r-1", first);
            enforcer.send("k-1", "r-2", first);
            enforcer.send("k-1", "r-3", first);
            enforcer.send("k-1", "r-4", second);
            enforcer.send("k-1", "r-5", second);
            enforcer.send("k-1", "r-6", first);
        }

        assertEquals(6L, stats.decisions().get(Reason.OK), "every decision is counted");
        Timer lag = registry.find("quota.decision.lag").timer();
        assertEquals(3L, lag.count(), "timed: the first decision at each new request millisecond (r-1, r-4, r-6)");
        assertEquals(9_000 + 8_999 + 9_000, lag.totalTime(TimeUnit.MILLISECONDS), 0.001,
                "each timed decision's lag runs from its request time to the clock");
    }
}

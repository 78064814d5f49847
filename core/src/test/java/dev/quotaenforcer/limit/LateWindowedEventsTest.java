package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Worked cases of late events on the windowed algorithms: each state records the time it was last
 * decided at, so a late event is decided at that time, never earlier.
 */
class LateWindowedEventsTest {

    private static final long NOON = Traffic.NOON;

    private static LimitPolicy policy(Algorithm algorithm, long limit, long windowSeconds) {
        return LimitPolicy.window("late", algorithm, limit, Duration.ofSeconds(windowSeconds));
    }

    /** Decides {@code cost} at {@code time} from {@code state} and returns the outcome. */
    private static PolicyOutcome decide(LimitPolicy policy, PolicyState state, long time, long cost) {
        return policy.decide(state, time, cost);
    }

    @Test
    void counterDecidesALateEventAtThePreviousEventTime() {
        LimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_COUNTER, 10, 60);
        PolicyState state = null;
        for (int i = 0; i < 10; i++) {
            state = decide(policy, state, NOON + 50_000, 1).state();
        }
        // 55 s into the next window: estimate 10 x 5/60 + 0 + 1, so admitted.
        PolicyOutcome previous = decide(policy, state, NOON + 115_000, 1);
        assertTrue(previous.verdict().allowed());

        // At NOON+115 s the estimate is 10 x 5/60 + 1 + 1 < 10; at NOON+70 s it is 10 x 50/60 + 1 + 1 > 10.
        PolicyOutcome atPrevious = decide(policy, previous.state(), NOON + 115_000, 1);
        PolicyOutcome late = decide(policy, previous.state(), NOON + 70_000, 1);

        assertTrue(atPrevious.verdict().allowed());
        assertEquals(atPrevious.verdict(), late.verdict(), "the late event is decided at NOON+115 s, not NOON+70 s");
    }

    @Test
    void logDecidesALateEventAgainstTheWindowOfThePreviousEvent() {
        LimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_LOG, 2, 10);
        PolicyState state = decide(policy, null, NOON, 1).state();
        state = decide(policy, state, NOON + 6_000, 1).state();
        // Denied at NOON+10 s; deciding it pruned the entry admitted at NOON from the log.
        PolicyOutcome denied = decide(policy, state, NOON + 10_000, 2);
        assertFalse(denied.verdict().allowed());

        // Decided at NOON+10 s, the window (NOON, NOON+10 s] holds the 1 admitted at NOON+6 s: one more fits.
        PolicyOutcome late = decide(policy, denied.state(), NOON + 5_000, 1);

        assertTrue(late.verdict().allowed());
        RequestLog log = (RequestLog) late.state();
        assertEquals(NOON + 10_000, log.times()[log.size() - 1], "recorded at the previous event's time");
        assertEquals(2, log.total(), "the window ending at NOON+10 s holds exactly the limit");
    }

    @Test
    void logRetryAfterOfALateEventCountsFromThePreviousEventTime() {
        LimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_LOG, 1, 10);
        PolicyState state = decide(policy, null, NOON, 1).state();
        PolicyOutcome previous = decide(policy, state, NOON + 4_000, 1);
        assertEquals(6, previous.verdict().retryAfterSeconds());

        PolicyOutcome late = decide(policy, previous.state(), NOON + 1_000, 1);

        // Decided at NOON+4 s, as the previous event was: 6 s, not the 9 s counted from NOON+1 s.
        assertEquals(6, late.verdict().retryAfterSeconds(), "Retry-After of " + late.verdict());
    }

    @Test
    void fixedWindowRetryAfterOfALateEventCountsFromThePreviousEventTime() {
        LimitPolicy policy = policy(Algorithm.FIXED_WINDOW, 1, 60);
        PolicyState state = decide(policy, null, NOON + 30_000, 1).state();
        PolicyOutcome previous = decide(policy, state, NOON + 40_000, 1);
        assertEquals(20, previous.verdict().retryAfterSeconds());

        PolicyOutcome late = decide(policy, previous.state(), NOON + 10_000, 1);

        // Decided at NOON+40 s, as the previous event was: 20 s to the next window, not 50.
        assertEquals(20, late.verdict().retryAfterSeconds(), "Retry-After of " + late.verdict());
    }
}

package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Late events on the windowed algorithms: FAILS, demonstrating a bug. Their states do not record the
 * previous event's time (fixed window and counter keep the window start, the log its newest admitted
 * entry), so a late event is decided at a time earlier than the previous event's.
 */
class OutOfOrderWindowedAlgorithmsTest {

    private static final long NOON = Traffic.NOON;

    private static LimitPolicy policy(Algorithm algorithm, long limit, long windowSeconds) {
        return LimitPolicy.window("late", algorithm, limit, Duration.ofSeconds(windowSeconds));
    }

    /** Decides {@code cost} at {@code time} from {@code state} and returns the outcome. */
    private static Outcome decide(LimitPolicy policy, PolicyState state, long time, long cost) {
        return policy.decide(state, time, cost);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER"})
    void lateEventIsDecidedAsAtThePreviousEventTime(Algorithm algorithm) {
        OutOfOrderPropertiesTest.checkLateEventsAreDecidedAtThePreviousEventTime(algorithm);
    }

    @Test
    void counterDeniesALateEventThatThePreviousEventTimeAdmits() {
        LimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_COUNTER, 10, 60);
        PolicyState state = null;
        for (int i = 0; i < 10; i++) {
            state = decide(policy, state, NOON + 50_000, 1).state();
        }
        // 55 s into the next window: estimate 10 x 5/60 + 0 + 1, so admitted.
        Outcome previous = decide(policy, state, NOON + 115_000, 1);
        assertTrue(previous.verdict().allowed());

        // At NOON+115 s the estimate is 10 x 5/60 + 1 + 1 < 10; at NOON+70 s it is 10 x 50/60 + 1 + 1 > 10.
        Outcome atPrevious = decide(policy, previous.state(), NOON + 115_000, 1);
        Outcome late = decide(policy, previous.state(), NOON + 70_000, 1);

        assertTrue(atPrevious.verdict().allowed());
        assertEquals(atPrevious.verdict(), late.verdict(), "the late event is decided at NOON+70 s, not NOON+115 s");
    }

    @Test
    void logRecordsALateAdmissionInsideAWindowItHasAlreadyPrunedAndExceedsItsLimit() {
        LimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_LOG, 2, 10);
        PolicyState state = decide(policy, null, NOON, 1).state();
        state = decide(policy, state, NOON + 6_000, 1).state();
        // Denied at NOON+10 s; deciding it pruned the entry admitted at NOON from the log.
        Outcome denied = decide(policy, state, NOON + 10_000, 2);
        assertFalse(denied.verdict().allowed());

        // The late event is decided at the newest entry's time, NOON+6 s, but against the log pruned
        // for NOON+10 s, so it is admitted and recorded at NOON+6 s.
        Outcome late = decide(policy, denied.state(), NOON + 5_000, 1);
        assertTrue(late.verdict().allowed());
        SlidingWindowLog.State log = (SlidingWindowLog.State) late.state();
        assertEquals(NOON + 6_000, log.times()[log.size() - 1], "recorded at");

        // The entry admitted at NOON counts during [NOON, NOON+10 s): with it, the window ending at
        // NOON+6 s holds 1 + 2 = 3 against a limit of 2. Decided at NOON+10 s it would have held 2.
        long inWindow = 1;
        for (int i = 0; i < log.size(); i++) {
            if (log.times()[i] > NOON + 6_000 - 10_000 && log.times()[i] <= NOON + 6_000) {
                inWindow += log.costs()[i];
            }
        }
        assertTrue(inWindow <= 2, "admitted " + inWindow + " in the window ending at NOON+6 s: " + log);
    }

    @Test
    void logRetryAfterOfALateEventCountsFromTheLateTime() {
        LimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_LOG, 1, 10);
        PolicyState state = decide(policy, null, NOON, 1).state();
        Outcome previous = decide(policy, state, NOON + 4_000, 1);
        assertEquals(6, previous.verdict().retryAfterSeconds());

        Outcome late = decide(policy, previous.state(), NOON + 1_000, 1);

        // Decided at NOON+4 s it would say 6 s; decided at NOON+1 s it says 9.
        assertEquals(6, late.verdict().retryAfterSeconds(), "Retry-After of " + late.verdict());
    }

    @Test
    void fixedWindowRetryAfterOfALateEventCountsFromTheLateTime() {
        LimitPolicy policy = policy(Algorithm.FIXED_WINDOW, 1, 60);
        PolicyState state = decide(policy, null, NOON + 30_000, 1).state();
        Outcome previous = decide(policy, state, NOON + 40_000, 1);
        assertEquals(20, previous.verdict().retryAfterSeconds());

        Outcome late = decide(policy, previous.state(), NOON + 10_000, 1);

        // Decided at NOON+40 s it would say 20 s (the next window); decided at NOON+10 s it says 50.
        assertEquals(20, late.verdict().retryAfterSeconds(), "Retry-After of " + late.verdict());
    }
}

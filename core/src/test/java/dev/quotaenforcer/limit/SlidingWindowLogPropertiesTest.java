package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Random-traffic properties of the sliding window log: it is both safe and exact in every window. */
class SlidingWindowLogPropertiesTest {

    /** Cost admitted among steps 0..upTo (inclusive) whose time lies in (end - W, end]. */
    private static long admittedInWindowEndingAt(List<Step> steps, int upTo, long end, long windowMs) {
        long total = 0;
        // Traces are in time order, so walking back can stop at the first step outside the window.
        for (int j = upTo; j >= 0 && steps.get(j).time() > end - windowMs; j--) {
            if (steps.get(j).allowed()) {
                total += steps.get(j).cost();
            }
        }
        return total;
    }

    @Test
    void logNeverAdmitsMoreThanLimitInAnyWindow() {
        Traffic.forEachCase(Algorithm.SLIDING_WINDOW_LOG, c -> {
            for (Step step : c.steps()) {
                if (!step.allowed()) {
                    continue;
                }
                // An entry admitted at x counts during [x, x + W), so the window ending at t is (t - W, t].
                long inWindow = admittedInWindowEndingAt(c.steps(), step.index(), step.time(), c.policy().windowMs());
                assertTrue(inWindow <= c.limit(),
                        () -> "admitted " + inWindow + " in the window ending here: " + c.describe(step));
            }
        });
    }

    @Test
    void logDeniesOnlyWhenTheRequestWouldExceedTheLimitInItsWindow() {
        Traffic.forEachCase(Algorithm.SLIDING_WINDOW_LOG, c -> {
            for (Step step : c.steps()) {
                if (step.allowed()) {
                    continue;
                }
                long before = step.index() == 0 ? 0
                        : admittedInWindowEndingAt(c.steps(), step.index() - 1, step.time(), c.policy().windowMs());
                assertTrue(before + step.cost() > c.limit(),
                        () -> "denied although only " + before + " was admitted in the window: " + c.describe(step));
            }
        });
    }
}

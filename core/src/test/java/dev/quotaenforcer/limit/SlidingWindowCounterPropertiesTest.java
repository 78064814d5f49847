package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Random-traffic properties of the sliding window counter: at most twice the limit in any window,
 * and the weighted estimate, recomputed here from the admitted requests, never above the limit.
 */
class SlidingWindowCounterPropertiesTest {

    /** Cost admitted among steps 0..upTo (inclusive) with time in [from, to]; steps are in time order. */
    private static long admittedBetween(List<Step> steps, int upTo, long from, long to) {
        long total = 0;
        for (int j = upTo; j >= 0 && steps.get(j).time() >= from; j--) {
            Step step = steps.get(j);
            if (step.allowed() && step.time() <= to) {
                total += step.cost();
            }
        }
        return total;
    }

    /**
     * The weighted estimate x W at {@code time} from the requests admitted among steps 0..upTo: the
     * previous aligned window's count weighted by the overlap W - elapsed, plus the current count x W.
     */
    private static long scaledEstimate(List<Step> steps, int upTo, long time, long windowMs) {
        long start = Math.floorDiv(time, windowMs) * windowMs;
        long previous = admittedBetween(steps, upTo, start - windowMs, start - 1);
        long current = admittedBetween(steps, upTo, start, time);
        return previous * (windowMs - (time - start)) + current * windowMs;
    }

    @Test
    void counterNeverAdmitsMoreThanTwiceTheLimitInAnyWindow() {
        Traffic.forEachCase(Algorithm.SLIDING_WINDOW_COUNTER, c -> {
            long windowMs = c.policy().windowMs();
            for (Step step : c.steps()) {
                if (step.allowed()) {
                    long inWindow = admittedBetween(c.steps(), step.index(), step.time() - windowMs + 1, step.time());
                    assertTrue(inWindow <= 2 * c.limit(),
                            () -> "admitted " + inWindow + " in the window ending here: " + c.describe(step));
                }
            }
        });
    }

    @Test
    void counterWeightedEstimateStaysWithinLimitAfterEveryAdmission() {
        Traffic.forEachCase(Algorithm.SLIDING_WINDOW_COUNTER, c -> {
            long windowMs = c.policy().windowMs();
            for (Step step : c.steps()) {
                if (step.allowed()) {
                    long estimate = scaledEstimate(c.steps(), step.index(), step.time(), windowMs);
                    assertTrue(estimate <= c.limit() * windowMs, () -> "estimate x W is " + estimate
                            + ", limit x W is " + c.limit() * windowMs + ": " + c.describe(step));
                }
            }
        });
    }

    @Test
    void counterDeniesOnlyWhenTheEstimateWouldExceedTheLimit() {
        Traffic.forEachCase(Algorithm.SLIDING_WINDOW_COUNTER, c -> {
            long windowMs = c.policy().windowMs();
            for (Step step : c.steps()) {
                long before = step.index() == 0 ? 0 : scaledEstimate(c.steps(), step.index() - 1, step.time(), windowMs);
                boolean fits = step.cost() <= c.limit() && before + step.cost() * windowMs <= c.limit() * windowMs;
                assertEquals(fits, step.allowed(), () -> "estimate x W before is " + before + ": " + c.describe(step));
            }
        });
    }
}

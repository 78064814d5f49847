package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Random-traffic properties of the token bucket, checked against the interval bound "capacity +
 * rate x T" directly on the admitted requests rather than against a re-implemented bucket level.
 */
class TokenBucketPropertiesTest {

    /**
     * The largest excess, in 1/periodMs token units, of admitted cost over refill across intervals
     * [a, end] that start at an admitted request among steps 0..upTo: max over a of
     * (cost admitted in [a, end]) x periodMs - tokens x (end - a). Exact integers throughout.
     */
    private static long worstExcessUnits(List<Step> steps, int upTo, long end, RefillRate rate) {
        long worst = Long.MIN_VALUE;
        long admitted = 0;
        for (int j = upTo; j >= 0; j--) {
            Step step = steps.get(j);
            if (!step.allowed()) {
                continue;
            }
            admitted += step.cost();
            long excess = Math.subtractExact(Math.multiplyExact(admitted, rate.periodMs()),
                    Math.multiplyExact(rate.tokens(), end - step.time()));
            worst = Math.max(worst, excess);
        }
        return worst;
    }

    @Test
    void tokenBucketNeverAdmitsMoreThanCapacityPlusRefillInAnyInterval() {
        Traffic.forEachCase(Algorithm.TOKEN_BUCKET, c -> {
            RefillRate rate = c.policy().refill();
            long capacityUnits = c.limit() * rate.periodMs();
            for (Step end : c.steps()) {
                if (!end.allowed()) {
                    continue;
                }
                // All pairs (a, b) of admitted times: cost in [a, b] <= capacity + tokens x (b - a) / periodMs.
                long excess = worstExcessUnits(c.steps(), end.index(), end.time(), rate);
                assertTrue(excess <= capacityUnits, () -> "admitted " + excess + " units beyond the refill since "
                        + "an earlier admission, capacity is " + capacityUnits + " units: " + c.describe(end));
            }
        });
    }

    @Test
    void tokenBucketDeniesOnlyWhenAdmittingWouldBreakTheIntervalBound() {
        Traffic.forEachCase(Algorithm.TOKEN_BUCKET, c -> {
            RefillRate rate = c.policy().refill();
            long capacityUnits = c.limit() * rate.periodMs();
            for (Step step : c.steps()) {
                // The bucket (full at the first request) is short of capacity by the worst excess over the
                // intervals ending now, or by nothing; a request fits exactly when its cost fits in the rest.
                long shortBy = step.index() == 0 ? 0
                        : Math.max(0, worstExcessUnits(c.steps(), step.index() - 1, step.time(), rate));
                boolean fits = step.cost() <= c.limit() && step.cost() * rate.periodMs() <= capacityUnits - shortBy;
                assertEquals(fits, step.allowed(),
                        () -> "bucket short by " + shortBy + " of " + capacityUnits + " units: " + c.describe(step));
            }
        });
    }
}

package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The remaining count of an allowed request is exactly what the same instant still admits. */
class RemainingPropertiesTest {

    // Asked of fixed window, log and token bucket; it holds for the counter (floor of the estimate's
    // headroom) and the leaky bucket (room left in the queue) too, so all five are checked.
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void remainingCostIsAllowedAtTheSameInstantAndOneMoreIsDenied(Algorithm algorithm) {
        Traffic.forEachCase(algorithm, c -> {
            for (Step step : c.steps()) {
                if (!step.allowed()) {
                    continue;
                }
                long remaining = step.verdict().remaining();
                if (remaining > 0) {
                    PolicyOutcome all = c.policy().decide(step.after(), step.time(), remaining);
                    assertTrue(all.verdict().allowed(),
                            () -> "cost " + remaining + " denied (" + all + "): " + c.describe(step));
                }
                PolicyOutcome more = c.policy().decide(step.after(), step.time(), remaining + 1);
                assertFalse(more.verdict().allowed(),
                        () -> "cost " + (remaining + 1) + " allowed (" + more + "): " + c.describe(step));
            }
        });
    }
}

package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Retry-After is honest for every algorithm: the same request succeeds exactly from that second on. */
class RetryAfterPropertiesTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void retryAfterIsTheFirstWholeSecondThatAdmitsTheSameRequest(Algorithm algorithm) {
        Traffic.forEachCase(algorithm, c -> {
            for (Step step : c.steps()) {
                long seconds = step.verdict().retryAfterSeconds();
                if (step.allowed() || seconds == Verdict.NEVER) {
                    continue;
                }
                assertTrue(seconds >= 1, () -> "a denial says retry after " + seconds + " s: " + c.describe(step));
                // Nothing else arrives: the state the denial returned is the one to retry against.
                PolicyOutcome then = c.policy().decide(step.after(), step.time() + seconds * 1000, step.cost());
                assertTrue(then.verdict().allowed(),
                        () -> "still denied " + seconds + " s later (" + then + "): " + c.describe(step));
                PolicyOutcome secondEarlier = c.policy().decide(step.after(), step.time() + (seconds - 1) * 1000, step.cost());
                assertFalse(secondEarlier.verdict().allowed(),
                        () -> "already allowed " + (seconds - 1) + " s later (" + secondEarlier + "): " + c.describe(step));
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void retryAfterIsNeverExactlyWhenTheCostExceedsTheLimit(Algorithm algorithm) {
        Traffic.forEachCase(algorithm, c -> {
            for (Step step : c.steps()) {
                long seconds = step.verdict().retryAfterSeconds();
                if (step.allowed()) {
                    assertEquals(0, seconds, () -> "an allowed request has no Retry-After: " + c.describe(step));
                } else {
                    assertEquals(step.cost() > c.limit(), seconds == Verdict.NEVER, () -> c.describe(step));
                }
            }
        });
    }
}

package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each algorithm's closed-form earliest admission is exact to the millisecond: the denied request
 * is admitted that many milliseconds later and still denied one millisecond sooner. Retry-After
 * (whole seconds) is derived from it, so this is finer than {@link RetryAfterPropertiesTest}.
 */
class AdmittedAfterPropertiesTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void theEarliestAdmissionIsExactToTheMillisecond(Algorithm algorithm) {
        // The limiter is typed by its algorithm's state, which the steps of that algorithm's traces carry.
        @SuppressWarnings("unchecked")
        Limiter<PolicyState> limiter = (Limiter<PolicyState>) algorithm.limiter();
        Traffic.forEachCase(algorithm, c -> {
            for (Step step : c.steps()) {
                if (step.allowed() || step.cost() > c.limit()) {
                    continue;
                }
                long now = step.after().updatedAt();
                long ms = limiter.admittedAfterMs(c.policy(), step.after(), now, step.cost());
                assertTrue(ms >= 1, () -> "admitted after " + ms + " ms: " + c.describe(step));
                assertTrue(c.policy().decide(step.after(), now + ms, step.cost()).verdict().allowed(),
                        () -> "still denied " + ms + " ms later: " + c.describe(step));
                assertFalse(c.policy().decide(step.after(), now + ms - 1, step.cost()).verdict().allowed(),
                        () -> "already admitted " + (ms - 1) + " ms later: " + c.describe(step));
            }
        });
    }
}

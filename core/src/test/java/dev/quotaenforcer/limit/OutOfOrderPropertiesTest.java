package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.limit.Traffic.Step;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A late event (older than the previous one) is decided as if it had arrived at the previous event's time. */
class OutOfOrderPropertiesTest {

    /** How far before the previous event a late event is: a few ms, within the horizon, or beyond it. */
    static long lateness(Random random, LimitPolicy policy) {
        long horizon = Traffic.horizonMs(policy);
        return switch (random.nextInt(3)) {
            case 0 -> 1 + random.nextInt(3);
            case 1 -> 1 + (long) (random.nextDouble() * horizon);
            default -> 1 + (long) (random.nextDouble() * 3 * horizon);
        };
    }

    /**
     * Before every request of the trace, the same request is also decided late (earlier than the
     * previous event) and at the previous event's time, both from the state after the previous event.
     */
    private static void checkLateEventsAreDecidedAtThePreviousEventTime(Algorithm algorithm) {
        Traffic.forEachCase(algorithm, c -> {
            Random random = new Random(c.seed());
            for (Step step : c.steps().subList(1, c.steps().size())) {
                Step previous = c.steps().get(step.index() - 1);
                long late = previous.time() - lateness(random, c.policy());
                PolicyOutcome decidedLate = c.policy().decide(previous.after(), late, step.cost());
                PolicyOutcome decidedAtPrevious = c.policy().decide(previous.after(), previous.time(), step.cost());
                Supplier<String> instead = () -> " a request of cost " + step.cost() + " at " + late + " (NOON+"
                        + (late - Traffic.NOON) + ") rather than at the previous event's time, right after "
                        + c.describe(previous);
                assertEquals(decidedAtPrevious.verdict(), decidedLate.verdict(), () -> "verdict of" + instead.get());
                assertEquals(decidedAtPrevious.state(), decidedLate.state(), () -> "state after" + instead.get());
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void lateEventIsDecidedAsAtThePreviousEventTime(Algorithm algorithm) {
        checkLateEventsAreDecidedAtThePreviousEventTime(algorithm);
    }
}

package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.limit.Traffic.Request;
import dev.quotaenforcer.limit.Traffic.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Decisions are a pure function of (state, time, cost): replaying a trace reproduces every outcome. */
class DeterminismPropertiesTest {

    private static List<PolicyOutcome> outcomes(List<Step> steps) {
        return steps.stream().map(Step::outcome).toList();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void replayingATraceFromNoStateGivesIdenticalVerdictsAndStates(Algorithm algorithm) {
        for (long seed = 0; seed < Traffic.SEEDS; seed++) {
            Random random = new Random(seed);
            LimitPolicy policy = Traffic.policy(random, algorithm);
            // Some late events too, so the clamp to the state's time is replayed as well.
            List<Request> requests = new ArrayList<>();
            for (Request request : Traffic.requests(random, policy, Traffic.REQUESTS)) {
                long time = random.nextInt(10) == 0
                        ? request.time() - OutOfOrderPropertiesTest.lateness(random, policy) : request.time();
                requests.add(new Request(time, request.cost()));
            }

            List<PolicyOutcome> first = outcomes(Traffic.replay(policy, requests));
            List<PolicyOutcome> second = outcomes(Traffic.replay(policy, requests));

            long s = seed;
            assertEquals(first, second, () -> "seed " + s + ", " + policy + ", requests " + requests);
        }
    }
}

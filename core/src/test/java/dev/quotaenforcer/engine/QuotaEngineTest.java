package dev.quotaenforcer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.RefillRate;
import dev.quotaenforcer.limit.Standing;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import dev.quotaenforcer.plan.PolicyKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties of deciding against a whole plan, over seeded random plans and traffic. */
class QuotaEngineTest {

    static Stream<Long> seeds() {
        return IntStream.range(0, 200).mapToObj(i -> (long) i);
    }

    private static Plan randomPlan(Random random) {
        List<PlanPolicy> policies = new ArrayList<>();
        int rateLimits = 1 + random.nextInt(3);
        for (int i = 0; i < rateLimits; i++) {
            Algorithm algorithm = Algorithm.values()[random.nextInt(Algorithm.values().length)];
            String name = "p" + i;
            LimitPolicy limit = algorithm.windowed()
                    ? LimitPolicy.window(name, algorithm, 2 + random.nextInt(30), Duration.ofSeconds(1 + random.nextInt(90)))
                    : LimitPolicy.bucket(name, algorithm, 2 + random.nextInt(30),
                            new RefillRate(1 + random.nextInt(5), 1000L * (1 + random.nextInt(20))));
            policies.add(new PlanPolicy(limit, PolicyKind.RATE));
        }
        Algorithm quota = random.nextBoolean() ? Algorithm.FIXED_WINDOW : Algorithm.SLIDING_WINDOW_COUNTER;
        policies.add(new PlanPolicy(LimitPolicy.window("quota", quota, 50 + random.nextInt(100), Duration.ofMinutes(10)),
                PolicyKind.QUOTA));
        return new Plan("random", policies);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void retryAfterOfAWholePlanIsHonest(long seed) {
        Random random = new Random(seed);
        Plan plan = randomPlan(random);
        KeyState state = null;
        long time = 1_764_504_000_000L + random.nextInt(1_000_000);
        for (int i = 0; i < 300; i++) {
            time += random.nextInt(4) == 0 ? 0 : random.nextInt(800);
            long cost = 1 + random.nextInt(3);
            PlanEvaluation evaluation = QuotaEngine.evaluate(plan, state, time, cost);
            long retryAfter = evaluation.retryAfterSeconds();
            if (!evaluation.allowed() && retryAfter != Verdict.NEVER) {
                String context = "seed " + seed + " request " + i + " at " + time + " cost " + cost;
                KeyState denied = evaluation.state();
                assertTrue(QuotaEngine.evaluate(plan, denied, time + retryAfter * 1000, cost).allowed(), context);
                if (retryAfter > 0) {
                    assertFalse(QuotaEngine.evaluate(plan, denied, time + (retryAfter - 1) * 1000, cost).allowed(), context);
                }
            }
            state = evaluation.state();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void deniedRequestConsumesNothing(long seed) {
        Random random = new Random(seed);
        Plan plan = randomPlan(random);
        KeyState state = null;
        long time = 1_764_504_000_000L;
        for (int i = 0; i < 300; i++) {
            time += random.nextInt(300);
            PlanEvaluation evaluation = QuotaEngine.evaluate(plan, state, time, 1 + random.nextInt(3));
            if (!evaluation.allowed()) {
                // Whatever comes next is decided as if the denied request had never arrived.
                long later = time + random.nextInt(5_000);
                long cost = 1 + random.nextInt(3);
                assertEquals(counts(QuotaEngine.evaluate(plan, state, later, cost)),
                        counts(QuotaEngine.evaluate(plan, evaluation.state(), later, cost)), "seed " + seed + " request " + i);
            }
            state = evaluation.state();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void stateSurvivesTheCodecUnchanged(long seed) {
        Random random = new Random(seed);
        Plan plan = randomPlan(random);
        KeyState state = null;
        long time = 1_764_504_000_000L;
        for (int i = 0; i < 200; i++) {
            time += random.nextInt(700);
            PlanEvaluation evaluation = QuotaEngine.evaluate(plan, state, time, 1 + random.nextInt(3));
            KeyState decoded = KeyStateCodec.decode(KeyStateCodec.encode(evaluation.state()));
            assertEquals(evaluation.state().slots(), decoded.slots(), "seed " + seed);
            assertEquals(evaluation.state().lastSeen(), decoded.lastSeen());
            state = decoded;
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void standingAfterAnAllowedRequestIsWhatItsVerdictsLeft(long seed) {
        Random random = new Random(seed);
        Plan plan = randomPlan(random);
        KeyState state = null;
        long time = 1_764_504_000_000L;
        for (int i = 0; i < 200; i++) {
            time += random.nextInt(600);
            PlanEvaluation evaluation = QuotaEngine.evaluate(plan, state, time, 1 + random.nextInt(3));
            state = evaluation.state();
            List<PolicyStanding> standings = QuotaEngine.standings(plan, state, evaluation.decidedAt());
            for (int p = 0; p < plan.policies().size(); p++) {
                Verdict verdict = evaluation.verdicts().get(p).verdict();
                if (evaluation.allowed() || !verdict.allowed()) {
                    assertEquals(verdict.remaining(), standings.get(p).standing().remaining(), "seed " + seed + " request " + i);
                    assertEquals(verdict.resetSeconds(), standings.get(p).standing().resetSeconds(), "seed " + seed + " request " + i);
                }
            }
        }
    }

    @Test
    void standingOfAnHourlyQuotaCountsWhatWasAllowedUntilTheHourEnds() {
        PlanPolicy hourly = new PlanPolicy(LimitPolicy.window("hourly", Algorithm.FIXED_WINDOW, 1000, Duration.ofHours(1)),
                PolicyKind.QUOTA);
        Plan plan = new Plan("pro", List.of(hourly));
        long hour = 1_764_504_000_000L;
        assertEquals(new Standing(1000, 1000, 3600), QuotaEngine.standings(plan, null, hour + 5).get(0).standing());

        KeyState state = null;
        for (int i = 0; i < 3; i++) {
            state = QuotaEngine.evaluate(plan, state, hour + 60_000, 5).state();
        }
        Standing midHour = QuotaEngine.standings(plan, state, hour + 1_800_000).get(0).standing();
        assertEquals(15, midHour.used());
        assertEquals(985, midHour.remaining());
        assertEquals(1800, midHour.resetSeconds());
        assertEquals(0, QuotaEngine.standings(plan, state, hour + 3_600_000).get(0).standing().used(),
                "a new hour starts with the whole quota");
    }

    /** What a gateway sees of each policy; the denial-run flag may differ by design. */
    private static List<String> counts(PlanEvaluation evaluation) {
        return evaluation.verdicts().stream()
                .map(v -> v.verdict().allowed() + " " + v.verdict().remaining() + " " + v.verdict().retryAfterSeconds())
                .toList();
    }
}

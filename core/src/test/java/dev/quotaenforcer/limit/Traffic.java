package dev.quotaenforcer.limit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/** Seeded random policies and request traces for the property tests, and a replay that threads the state. */
final class Traffic {

    /** A round instant (a whole hour) that traces start shortly after, as in the seed examples. */
    static final long NOON = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();

    private static final long[] LONG_WINDOWS_S = {60, 90, 300, 3600};

    private Traffic() {
    }

    /** One request of a trace. */
    record Request(long time, long cost) {
    }

    /** One decided request: the state it was decided against and what came out. */
    record Step(int index, Request request, PolicyState before, PolicyOutcome outcome) {

        long time() {
            return request.time();
        }

        long cost() {
            return request.cost();
        }

        Verdict verdict() {
            return outcome.verdict();
        }

        boolean allowed() {
            return outcome.verdict().allowed();
        }

        PolicyState after() {
            return outcome.state();
        }
    }

    /** A replayed random case: the seed it came from, its policy and its decided trace. */
    record Case(long seed, LimitPolicy policy, List<Step> steps) {

        /** The policy and in-order trace of {@code count} requests that {@code seed} makes for {@code algorithm}. */
        static Case of(long seed, Algorithm algorithm, int count) {
            Random random = new Random(seed);
            LimitPolicy policy = Traffic.policy(random, algorithm);
            return new Case(seed, policy, replay(policy, requests(random, policy, count)));
        }

        long limit() {
            return policy.limit();
        }

        String describe(Step step) {
            return Traffic.describe(seed, policy, step);
        }
    }

    /**
     * Seeds per property and algorithm. The seeds are looped over inside one test method rather than
     * parameterized, because a JUnit invocation costs more than deciding a whole trace.
     */
    static final int SEEDS = 400;

    /** Requests per trace. */
    static final int REQUESTS = 200;

    /** Runs {@code check} on the case of every seed 0..SEEDS-1; each case's messages name its seed. */
    static void forEachCase(Algorithm algorithm, Consumer<Case> check) {
        for (long seed = 0; seed < SEEDS; seed++) {
            check.accept(Case.of(seed, algorithm, REQUESTS));
        }
    }

    /**
     * A random policy: limits and capacities of a few to a few hundred (skewed small, so that costs
     * above the limit come up), windows of whole seconds, and bucket rates of many shapes, including
     * fractional per-second rates such as 5 per minute and odd ones such as 3 per 7 s.
     */
    static LimitPolicy policy(Random random, Algorithm algorithm) {
        long limit = switch (random.nextInt(10)) {
            case 0, 1, 2, 3, 4 -> 1 + random.nextInt(10);
            case 5, 6, 7 -> 11 + random.nextInt(50);
            default -> 61 + random.nextInt(240);
        };
        if (algorithm.windowed()) {
            long seconds = random.nextInt(10) < 7
                    ? 1 + random.nextInt(30)
                    : LONG_WINDOWS_S[random.nextInt(LONG_WINDOWS_S.length)];
            return LimitPolicy.window("p", algorithm, limit, Duration.ofSeconds(seconds));
        }
        RefillRate rate = switch (random.nextInt(5)) {
            case 0 -> RefillRate.of(1 + random.nextInt(20), Duration.ofSeconds(1));
            case 1 -> RefillRate.of(1 + random.nextInt(30), Duration.ofMinutes(1));
            case 2 -> RefillRate.of(1 + random.nextInt(100), Duration.ofHours(1));
            case 3 -> RefillRate.of(1 + random.nextInt(9), Duration.ofMillis(1 + random.nextInt(20_000)));
            default -> RefillRate.of(1 + random.nextInt(5), Duration.ofMillis(1 + random.nextInt(10)));
        };
        return LimitPolicy.bucket("p", algorithm, limit, rate);
    }

    /** Milliseconds the policy needs, at its sustained rate, to admit one more unit of cost (at least 1). */
    static long msPerUnit(LimitPolicy policy) {
        if (policy.algorithm().windowed()) {
            return Math.max(1, policy.windowMs() / policy.limit());
        }
        return Math.max(1, policy.refill().periodMs() / policy.refill().tokens());
    }

    /** Longest wait after which any state is as good as fresh (two windows, or an empty bucket refilled). */
    static long horizonMs(LimitPolicy policy) {
        if (policy.algorithm().windowed()) {
            return 2 * policy.windowMs();
        }
        return Limiter.ceilDiv(policy.limit() * policy.refill().periodMs(), policy.refill().tokens());
    }

    /**
     * A trace in time order (gaps never negative): bursts at the same millisecond, gaps around the
     * sustained rate scaled by a per-trace load, and occasional idle stretches beyond the horizon.
     * Costs are 1..k for a per-trace k (at most the limit), plus a sprinkle costing more than the limit.
     */
    static List<Request> requests(Random random, LimitPolicy policy, int count) {
        long unit = msPerUnit(policy);
        double load = 0.1 + 2.5 * random.nextDouble();
        // Most costs fit the limit; the few that do not exercise Retry-After's NEVER.
        int maxCost = (int) Math.min(policy.limit(), new int[] {1, 1, 2, 5, 20}[random.nextInt(5)]);
        long horizon = horizonMs(policy);
        long time = NOON + random.nextInt(1_000_000);
        List<Request> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long cost = random.nextInt(40) == 0 ? policy.limit() + 1 + random.nextInt(3) : 1 + random.nextInt(maxCost);
            requests.add(new Request(time, cost));
            time += gap(random, unit, load, maxCost, horizon);
        }
        return requests;
    }

    private static long gap(Random random, long unit, double load, int maxCost, long horizon) {
        int kind = random.nextInt(20);
        if (kind < 6) {
            return 0;
        }
        if (kind < 8) {
            return 1 + random.nextInt(3);
        }
        if (kind < 19) {
            // Uniform with mean unit x load x mean cost: load < 1 overloads the policy, load > 1 does not.
            return (long) (random.nextDouble() * 2 * unit * load * (1 + maxCost) / 2);
        }
        return (long) (random.nextDouble() * 1.5 * horizon);
    }

    /** Decides every request in order from a key never seen, threading the state. */
    static List<Step> replay(LimitPolicy policy, List<Request> requests) {
        List<Step> steps = new ArrayList<>(requests.size());
        PolicyState state = null;
        for (Request request : requests) {
            PolicyOutcome outcome = policy.decide(state, request.time(), request.cost());
            steps.add(new Step(steps.size(), request, state, outcome));
            state = outcome.state();
        }
        return steps;
    }

    /** What a failure message needs: the seed regenerates the case with {@code Case.of(seed, algorithm, REQUESTS)}. */
    static String describe(long seed, LimitPolicy policy, Step step) {
        return "seed " + seed + ", " + policy + ", request #" + step.index() + " at " + step.time()
                + " (NOON+" + (step.time() - NOON) + ") cost " + step.cost() + ", state before " + step.before()
                + " -> " + step.outcome();
    }
}

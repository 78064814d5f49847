package dev.quotaenforcer.bench;

import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.PolicyOutcome;
import dev.quotaenforcer.limit.PolicyState;
import java.time.Duration;
import java.util.SplittableRandom;
import redis.clients.jedis.Jedis;

/**
 * Checks the Redis script decides right before it is timed, so a broken script cannot produce
 * pretty numbers: 15 requests against a limit of 10 must allow exactly 10, and a seeded sequence
 * spanning several windows must be decided exactly as the enforcer's own sliding window counter does.
 */
final class ScriptCheck {

    static final int BURST = 15;
    static final int BURST_LIMIT = 10;
    static final int SEQUENCE = 300;
    /** An instant on a whole minute, so the burst sits early in a fresh window of either length. */
    private static final long EPOCH_MS = 1_767_225_600_000L;

    /** What the check found; it throws rather than return a disagreement. */
    record Checked(int burstAllowed, int sequenceAllowed, int sequenceDecided) {
    }

    private ScriptCheck() {
    }

    /** Runs both checks under key names of {@code namespace}, which must not yet hold counters. */
    static Checked run(Jedis jedis, String sha, String namespace, long seed) {
        SlidingWindowScript burstScript = new SlidingWindowScript(BURST_LIMIT, Duration.ofMinutes(1).toMillis());
        int burstAllowed = 0;
        for (int i = 0; i < BURST; i++) {
            if (burstScript.allow(jedis, sha, namespace + ":burst", EPOCH_MS + 1_000 + i, 1)) {
                burstAllowed++;
            }
        }
        if (burstAllowed != BURST_LIMIT) {
            throw new IllegalStateException("the Redis script allowed " + burstAllowed + " of " + BURST
                    + " requests against a limit of " + BURST_LIMIT);
        }
        LimitPolicy policy = LimitPolicy.window("check", Algorithm.SLIDING_WINDOW_COUNTER, BURST_LIMIT,
                Duration.ofSeconds(10));
        SlidingWindowScript script = new SlidingWindowScript(policy.limit(), policy.windowMs());
        SplittableRandom random = new SplittableRandom(seed);
        PolicyState state = null;
        long now = EPOCH_MS;
        int allowed = 0;
        for (int i = 0; i < SEQUENCE; i++) {
            // Gaps averaging 200 ms, so the sequence crosses about six windows, some with a full previous one.
            now += random.nextInt(400);
            long cost = 1 + random.nextInt(3);
            PolicyOutcome ours = policy.decide(state, now, cost);
            state = ours.state();
            boolean theirs = script.allow(jedis, sha, namespace + ":sequence", now, cost);
            if (theirs != ours.verdict().allowed()) {
                throw new IllegalStateException("the Redis script " + (theirs ? "allowed" : "denied") + " request " + i
                        + " (cost " + cost + " at " + now + " ms) which the enforcer's sliding window counter "
                        + (theirs ? "denies" : "allows"));
            }
            allowed += theirs ? 1 : 0;
        }
        return new Checked(burstAllowed, allowed, SEQUENCE);
    }
}

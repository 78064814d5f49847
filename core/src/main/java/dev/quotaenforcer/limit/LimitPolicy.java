package dev.quotaenforcer.limit;

import java.time.Duration;
import java.util.Objects;

/**
 * One limit of a plan: a name, its algorithm and that algorithm's parameters. Windowed algorithms
 * use {@code limit} per {@code windowMs}; buckets use {@code limit} as capacity and {@code refill}.
 */
public record LimitPolicy(String name, Algorithm algorithm, long limit, long windowMs, RefillRate refill) {

    public LimitPolicy {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(algorithm, "algorithm");
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
        if (algorithm.windowed()) {
            if (windowMs < 1000 || windowMs % 1000 != 0) {
                throw new IllegalArgumentException("window must be a whole number of seconds: " + windowMs + " ms");
            }
            if (refill != null) {
                throw new IllegalArgumentException(algorithm + " takes no refill rate");
            }
        } else {
            Objects.requireNonNull(refill, "refill");
            // Bucket levels are kept in units of 1/periodMs token; capacity must fit a long in those units.
            Math.multiplyExact(limit, refill.periodMs());
        }
    }

    public static LimitPolicy window(String name, Algorithm algorithm, long limit, Duration window) {
        return new LimitPolicy(name, algorithm, limit, window.toMillis(), null);
    }

    public static LimitPolicy bucket(String name, Algorithm algorithm, long capacity, RefillRate refill) {
        return new LimitPolicy(name, algorithm, capacity, 0, refill);
    }

    /** Decides one request of {@code cost} at {@code nowMs} against this policy and its current state. */
    public PolicyOutcome decide(PolicyState state, long nowMs, long cost) {
        return decide(state, nowMs, cost, 0, nowMs);
    }

    /**
     * Decides one request with {@code extra} granted on top of the limit until {@code extraUntil}
     * (exclusive); Retry-After accounts for the allowance dropping back when the grant ends.
     */
    public PolicyOutcome decide(PolicyState state, long nowMs, long cost, long extra, long extraUntil) {
        return algorithm.limiter().decide(this, state, nowMs, cost, extra, extraUntil);
    }

    /**
     * This policy with {@code extra} more allowance: a larger limit per window, or a larger bucket.
     *
     * @throws ArithmeticException when the raised limit does not fit the policy's arithmetic
     */
    public LimitPolicy raisedBy(long extra) {
        return extra == 0 ? this : new LimitPolicy(name, algorithm, Math.addExact(limit, extra), windowMs, refill);
    }

    /**
     * When a grant made at {@code now} ends: the end of the current window for windowed algorithms,
     * windows being aligned to the epoch as fixed windows are (so {@code PT1H} is the calendar hour,
     * for sliding windows too); for buckets, {@code now} plus the time the rate takes to fill the
     * whole capacity, the window a bucket is described by in {@code RateLimit-Policy}.
     */
    public long grantEnd(long now) {
        if (algorithm.windowed()) {
            return FixedWindow.windowStart(this, now) + windowMs;
        }
        return now + Bucket.msFor(this, Bucket.capacityUnits(this));
    }

    /**
     * The state once {@code amount} is granted at {@code now} on top of {@code previousExtra} already
     * granted: unchanged but for a token bucket, which receives the granted tokens at once.
     *
     * @throws ArithmeticException when the raised limit does not fit the policy's arithmetic
     */
    public PolicyState grant(PolicyState state, long now, long previousExtra, long amount) {
        return algorithm.limiter().grant(raisedBy(previousExtra), raisedBy(Math.addExact(previousExtra, amount)), state,
                now, amount);
    }

    /**
     * The state as it stands at {@code time} if nothing arrived in between (windows rolled, buckets
     * refilled or drained); null for no state. Never moves a state back in time.
     */
    public PolicyState advance(PolicyState state, long time) {
        return algorithm.limiter().advanceTo(this, state, time);
    }

    /** Where {@code state} stands at {@code time} with nothing arriving in between; null state is a fresh one. */
    public Standing standing(PolicyState state, long time) {
        return algorithm.limiter().standing(this, state, time);
    }

    /** The time from which {@code state} is indistinguishable from no state at all. */
    public long idleFrom(PolicyState state) {
        return algorithm.limiter().idleTime(this, state);
    }
}

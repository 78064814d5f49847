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
    public Outcome decide(PolicyState state, long nowMs, long cost) {
        return algorithm.limiter().decide(this, state, nowMs, cost);
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

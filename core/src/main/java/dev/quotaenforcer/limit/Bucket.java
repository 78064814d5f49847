package dev.quotaenforcer.limit;

/**
 * What token and leaky buckets share: a level in units of 1/{@code periodMs} of a token, moved by
 * the rate at exactly {@link RefillRate#tokens()} units per millisecond, so no rounding ever drifts.
 */
abstract class Bucket extends Limiter<BucketLevel> {

    Bucket() {
        super(BucketLevel.class);
    }

    static long capacityUnits(LimitPolicy policy) {
        return policy.limit() * policy.refill().periodMs();
    }

    static long units(LimitPolicy policy, long tokens) {
        return tokens * policy.refill().periodMs();
    }

    /** Milliseconds the rate needs to move the level by {@code units}, rounded up. */
    static long msFor(LimitPolicy policy, long units) {
        return ceilDiv(units, policy.refill().tokens());
    }

    /**
     * How far the rate moves the level in {@code elapsed} ms, saturating at {@code bound} (no overflow).
     * Decided by a multiplication checked for overflow, not by dividing the bound by the rate: a
     * 64-bit division is the slowest instruction on a decision's path.
     */
    static long flow(LimitPolicy policy, long elapsed, long bound) {
        if (elapsed <= 0) {
            return 0;
        }
        long tokens = policy.refill().tokens();
        long moved = elapsed * tokens;
        boolean overflowed = Math.multiplyHigh(elapsed, tokens) != 0 || moved < 0;
        return overflowed ? bound : Math.min(moved, bound);
    }

    /** Milliseconds until the rate has moved the level by {@code shortfall} units; never for a cost over capacity. */
    static long admittedAfterMs(LimitPolicy policy, long cost, long shortfall) {
        return cost > policy.limit() ? Verdict.NEVER : msFor(policy, shortfall);
    }

    @Override
    final BucketLevel withDenying(BucketLevel state, boolean denying) {
        return new BucketLevel(state.level(), state.updatedAt(), denying);
    }

    @Override
    final long idleFrom(LimitPolicy policy, BucketLevel state) {
        return state.updatedAt() + resetMs(policy, state, state.updatedAt());
    }
}

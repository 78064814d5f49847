package dev.quotaenforcer.limit;

/**
 * Token bucket: up to {@code capacity} tokens, refilled lazily from the elapsed time (no timers);
 * each request takes {@code cost} tokens. Allows bursts up to the capacity, then the refill rate.
 * A key never seen before starts with a full bucket.
 */
final class TokenBucket extends Bucket {

    @Override
    BucketLevel fresh(LimitPolicy policy, long now) {
        return new BucketLevel(capacityUnits(policy), now, false);
    }

    @Override
    BucketLevel advance(LimitPolicy policy, BucketLevel state, long now) {
        long missing = capacityUnits(policy) - state.level();
        long refilled = flow(policy, now - state.updatedAt(), missing);
        return new BucketLevel(state.level() + refilled, Math.max(now, state.updatedAt()), state.denying());
    }

    @Override
    boolean admits(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return cost <= policy.limit() && units(policy, cost) <= state.level();
    }

    @Override
    BucketLevel consume(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return new BucketLevel(state.level() - units(policy, cost), state.updatedAt(), state.denying());
    }

    @Override
    long remaining(LimitPolicy policy, BucketLevel state, long now) {
        return state.level() / policy.refill().periodMs();
    }

    @Override
    long admittedAfterMs(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return admittedAfterMs(policy, cost, units(policy, cost) - state.level());
    }

    @Override
    long resetMs(LimitPolicy policy, BucketLevel state, long now) {
        return msFor(policy, capacityUnits(policy) - state.level());
    }
}

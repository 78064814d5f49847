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
        // A level above capacity is what remains of a grant that has ended: it lapses.
        long level = missing <= 0 ? capacityUnits(policy) : state.level() + flow(policy, now - state.updatedAt(), missing);
        return new BucketLevel(level, Math.max(now, state.updatedAt()), state.denying());
    }

    @Override
    boolean admits(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return cost <= policy.limit() && units(policy, cost) <= state.level();
    }

    @Override
    BucketLevel consume(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return new BucketLevel(state.level() - units(policy, cost), state.updatedAt(), state.denying());
    }

    /**
     * The granted tokens go into the bucket at once, above its usual capacity if need be; refill
     * stops at the raised capacity while the grant lasts, and what is left of the grant when it ends
     * lapses at the next decision, which brings the level back to the capacity.
     */
    @Override
    BucketLevel granted(LimitPolicy raised, BucketLevel current, long amount) {
        long level = Math.min(current.level() + units(raised, amount), capacityUnits(raised));
        return new BucketLevel(level, current.updatedAt(), current.denying());
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

package dev.quotaenforcer.limit;

/**
 * Leaky bucket as a queue: admitted requests join a queue of {@code capacity} that drains at a
 * constant rate. A request that fits is allowed with the delay the gateway must hold it for (the
 * time the queue ahead of it needs to drain, so an idle key is forwarded at once); a request that
 * would overflow the queue is denied. The output is perfectly smooth; the price is latency.
 */
final class LeakyBucket extends Bucket {

    @Override
    BucketLevel fresh(LimitPolicy policy, long now) {
        return new BucketLevel(0, now, false);
    }

    @Override
    BucketLevel advance(LimitPolicy policy, BucketLevel state, long now) {
        long drained = flow(policy, now - state.updatedAt(), state.level());
        return new BucketLevel(state.level() - drained, Math.max(now, state.updatedAt()), state.denying());
    }

    @Override
    boolean admits(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return cost <= policy.limit()
                && units(policy, cost) <= capacityUnits(policy) - state.level();
    }

    @Override
    BucketLevel consume(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return new BucketLevel(state.level() + units(policy, cost), state.updatedAt(), state.denying());
    }

    @Override
    long remaining(LimitPolicy policy, BucketLevel state, long now) {
        return (capacityUnits(policy) - state.level()) / policy.refill().periodMs();
    }

    /** Admitted once the queue has drained enough for the cost to fit. */
    @Override
    long admittedAfterMs(LimitPolicy policy, BucketLevel state, long now, long cost) {
        return admittedAfterMs(policy, cost, state.level() - (capacityUnits(policy) - units(policy, cost)));
    }

    @Override
    long resetMs(LimitPolicy policy, BucketLevel state, long now) {
        return msFor(policy, state.level());
    }

    @Override
    long delayMs(LimitPolicy policy, BucketLevel admittedFrom, long now) {
        return msFor(policy, admittedFrom.level());
    }
}

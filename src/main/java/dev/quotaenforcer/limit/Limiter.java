package dev.quotaenforcer.limit;

/**
 * The shape every algorithm shares: bring the state up to the event time, test admission, consume,
 * and derive the header values. Retry-After is found by search over the admission test itself, so
 * it is exact for every algorithm: with nothing else arriving, each algorithm's allowance only grows
 * with time, so the earliest admitting millisecond is well defined.
 *
 * @param <S> the algorithm's state type
 */
abstract class Limiter<S extends PolicyState> {

    private final Class<S> stateType;

    Limiter(Class<S> stateType) {
        this.stateType = stateType;
    }

    /** The state of a key never seen by this policy, at {@code now}. */
    abstract S fresh(LimitPolicy policy, long now);

    /**
     * The state as it stands at {@code now} with nothing else arriving (window roll, refill,
     * expiry), stamped with {@code now}; {@code now} is never before the state's own time.
     */
    abstract S advance(LimitPolicy policy, S state, long now);

    abstract boolean admits(LimitPolicy policy, S state, long now, long cost);

    abstract S consume(LimitPolicy policy, S state, long now, long cost);

    abstract long remaining(LimitPolicy policy, S state, long now);

    /** Milliseconds until the policy is back to its full allowance. */
    abstract long resetMs(LimitPolicy policy, S state, long now);

    /** Longest wait, from any state, until the state is as good as fresh. */
    abstract long horizonMs(LimitPolicy policy);

    abstract S withDenying(S state, boolean denying);

    abstract long idleFrom(LimitPolicy policy, S state);

    /** How long an admitted request must be held before forwarding; only queues hold requests. */
    long delayMs(LimitPolicy policy, S admittedFrom, long now) {
        return 0;
    }

    /** Whether an admission ends a run of denials; fixed windows report once per window instead. */
    boolean admissionEndsDenialRun() {
        return true;
    }

    /** The time from which {@code state} no longer differs from no state; state of another type never counts. */
    final long idleTime(LimitPolicy policy, PolicyState state) {
        return stateType.isInstance(state) ? idleFrom(policy, stateType.cast(state)) : Long.MIN_VALUE;
    }

    /** {@code state} brought forward to {@code time} with nothing consumed; null stays null. */
    final PolicyState advanceTo(LimitPolicy policy, PolicyState state, long time) {
        if (!stateType.isInstance(state)) {
            return null;
        }
        S known = stateType.cast(state);
        return advance(policy, known, Math.max(time, known.updatedAt()));
    }

    /** Where {@code previous} (null for none) stands at {@code time}, without deciding anything. */
    final Standing standing(LimitPolicy policy, PolicyState previous, long time) {
        S known = stateType.isInstance(previous) ? stateType.cast(previous) : null;
        long now = known == null ? time : Math.max(time, known.updatedAt());
        S current = known == null ? fresh(policy, now) : advance(policy, known, now);
        return new Standing(policy.limit(), remaining(policy, current, now), seconds(resetMs(policy, current, now)));
    }

    final Outcome decide(LimitPolicy policy, PolicyState previous, long eventTime, long cost) {
        S known = stateType.isInstance(previous) ? stateType.cast(previous) : null;
        long now = known == null ? eventTime : Math.max(eventTime, known.updatedAt());
        S current = known == null ? fresh(policy, now) : advance(policy, known, now);
        if (admits(policy, current, now, cost)) {
            S consumed = consume(policy, current, now, cost);
            if (admissionEndsDenialRun()) {
                consumed = withDenying(consumed, false);
            }
            Verdict verdict = new Verdict(true, policy.limit(), remaining(policy, consumed, now),
                    seconds(resetMs(policy, consumed, now)), 0, delayMs(policy, current, now), false);
            return new Outcome(verdict, consumed);
        }
        Verdict verdict = new Verdict(false, policy.limit(), remaining(policy, current, now),
                seconds(resetMs(policy, current, now)), retryAfterSeconds(policy, current, now, cost), 0,
                !current.denying());
        return new Outcome(verdict, withDenying(current, true));
    }

    private long retryAfterSeconds(LimitPolicy policy, S state, long now, long cost) {
        long horizon = horizonMs(policy);
        if (!admits(policy, advance(policy, state, now + horizon), now + horizon, cost)) {
            return Verdict.NEVER;
        }
        long notYet = 0;
        long admitted = horizon;
        while (admitted - notYet > 1) {
            long mid = notYet + (admitted - notYet) / 2;
            if (admits(policy, advance(policy, state, now + mid), now + mid, cost)) {
                admitted = mid;
            } else {
                notYet = mid;
            }
        }
        return seconds(admitted);
    }

    static long ceilDiv(long x, long y) {
        return -Math.floorDiv(-x, y);
    }

    static long seconds(long ms) {
        return Math.max(0, ceilDiv(ms, 1000L));
    }
}

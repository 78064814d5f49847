package dev.quotaenforcer.limit;

/**
 * The shape every algorithm shares: bring the state up to the event time, test admission, consume,
 * and derive the header values. Retry-After comes from the earliest millisecond at which the same
 * request would be admitted with nothing else arriving: each algorithm's allowance only grows with
 * time, so that millisecond is well defined, and each algorithm computes it in closed form from its
 * state (a search over the admission test cost up to 22 trials, each a state copy, on every denial).
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

    /**
     * For a request {@code state} does not admit at {@code now}: the fewest milliseconds after which
     * it would be, with nothing else arriving (at least 1), or {@link Verdict#NEVER} when the cost
     * exceeds what the policy can ever admit.
     */
    abstract long admittedAfterMs(LimitPolicy policy, S state, long now, long cost);

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

    /**
     * A grant raised to {@code after} (from {@code before}) at {@code now}: most algorithms need nothing
     * more than the raised limit, which the decisions apply while the grant lasts; a token bucket also
     * receives the granted tokens at once (see {@link TokenBucket#granted}). A grant ends any run of
     * denials, so a denial after it opens a new one (and is reported), even within a fixed window.
     */
    final PolicyState grant(LimitPolicy before, LimitPolicy after, PolicyState state, long now, long amount) {
        S known = stateType.isInstance(state) ? stateType.cast(state) : null;
        S current = known == null ? fresh(before, now) : advance(before, known, Math.max(now, known.updatedAt()));
        return withDenying(granted(after, current, amount), false);
    }

    /** The state once {@code amount} is granted on top of the policy, {@code raised} being the policy with the grant. */
    S granted(LimitPolicy raised, S current, long amount) {
        return current;
    }

    /**
     * Decides against {@code base}, raised by {@code extra} while {@code now} is before {@code extraUntil}
     * (a grant). Retry-After stays exact across the grant's end, where the allowance drops back: the
     * earliest admission under the raised limit counts only if it comes before the grant ends.
     */
    final PolicyOutcome decide(LimitPolicy base, PolicyState previous, long eventTime, long cost, long extra, long extraUntil) {
        S known = stateType.isInstance(previous) ? stateType.cast(previous) : null;
        long now = known == null ? eventTime : Math.max(eventTime, known.updatedAt());
        LimitPolicy policy = extra > 0 && now < extraUntil ? base.raisedBy(extra) : base;
        S current = known == null ? fresh(policy, now) : advance(policy, known, now);
        if (admits(policy, current, now, cost)) {
            S consumed = consume(policy, current, now, cost);
            // Most admissions follow admissions: only a state still in a denial run needs a new copy.
            if (admissionEndsDenialRun() && consumed.denying()) {
                consumed = withDenying(consumed, false);
            }
            Verdict verdict = new Verdict(true, policy.limit(), remaining(policy, consumed, now),
                    seconds(resetMs(policy, consumed, now)), 0, delayMs(policy, current, now), false);
            return new PolicyOutcome(verdict, consumed);
        }
        Verdict verdict = new Verdict(false, policy.limit(), remaining(policy, current, now),
                seconds(resetMs(policy, current, now)), retryAfterSeconds(base, policy, extraUntil, current, now, cost),
                0, !current.denying());
        return new PolicyOutcome(verdict, current.denying() ? current : withDenying(current, true));
    }

    /**
     * The first whole second from {@code now} that admits the request: under the raised {@code policy}
     * if that second still falls inside the grant, else under {@code base} once the grant has ended.
     */
    private long retryAfterSeconds(LimitPolicy base, LimitPolicy policy, long extraUntil, S state, long now, long cost) {
        long raised = admittedAfterMs(policy, state, now, cost);
        if (policy == base || raised != Verdict.NEVER && now + seconds(raised) * 1000 < extraUntil) {
            return raised == Verdict.NEVER ? Verdict.NEVER : seconds(raised);
        }
        long plain = admittedAfterMs(base, state, now, cost);
        return plain == Verdict.NEVER ? Verdict.NEVER : seconds(Math.max(extraUntil - now, plain));
    }

    static long ceilDiv(long x, long y) {
        return -Math.floorDiv(-x, y);
    }

    static long seconds(long ms) {
        return Math.max(0, ceilDiv(ms, 1000L));
    }
}

package dev.quotaenforcer.limit;

/**
 * Sliding window counter: the counts of the previous and the current aligned window, with the
 * previous one weighted by how much of it the sliding window still overlaps. Two numbers per key;
 * an approximation that assumes the previous window's requests were spread evenly.
 */
final class SlidingWindowCounter extends Limiter<SlidingCounts> {

    SlidingWindowCounter() {
        super(SlidingCounts.class);
    }

    @Override
    SlidingCounts fresh(LimitPolicy policy, long now) {
        return new SlidingCounts(FixedWindow.windowStart(policy, now), 0, 0, now, false);
    }

    @Override
    SlidingCounts advance(LimitPolicy policy, SlidingCounts state, long now) {
        long start = FixedWindow.windowStart(policy, now);
        if (start == state.windowStart()) {
            return new SlidingCounts(start, state.previous(), state.current(), now, state.denying());
        }
        long carried = start - state.windowStart() == policy.windowMs() ? state.current() : 0;
        return new SlidingCounts(start, carried, 0, now, state.denying());
    }

    /**
     * The weighted estimate times the window length, kept in integers so the comparison is exact:
     * previous x (W - elapsed) + current x W. With 84 previous, 36 current, 15 s into a 60 s window:
     * 84 x 45 + 36 x 60 = 5940, i.e. an estimate of 99.
     */
    private static long scaledEstimate(LimitPolicy policy, SlidingCounts state, long now) {
        long window = policy.windowMs();
        long elapsed = now - state.windowStart();
        return state.previous() * (window - elapsed) + state.current() * window;
    }

    @Override
    boolean admits(LimitPolicy policy, SlidingCounts state, long now, long cost) {
        if (cost > policy.limit()) {
            return false;
        }
        return scaledEstimate(policy, state, now) + cost * policy.windowMs() <= policy.limit() * policy.windowMs();
    }

    @Override
    SlidingCounts consume(LimitPolicy policy, SlidingCounts state, long now, long cost) {
        return new SlidingCounts(state.windowStart(), state.previous(), state.current() + cost, now, state.denying());
    }

    @Override
    long remaining(LimitPolicy policy, SlidingCounts state, long now) {
        long free = policy.limit() * policy.windowMs() - scaledEstimate(policy, state, now);
        return Math.max(0, Math.floorDiv(free, policy.windowMs()));
    }

    @Override
    long resetMs(LimitPolicy policy, SlidingCounts state, long now) {
        if (state.current() > 0) {
            return state.windowStart() + 2 * policy.windowMs() - now;
        }
        return state.previous() > 0 ? state.windowStart() + policy.windowMs() - now : 0;
    }

    /**
     * Inside the current window the estimate falls as the previous window's weight does: admitted
     * once previous x (W - elapsed) is at most (limit - current - cost) x W. Failing that, in the
     * next window, whose previous count is today's current: once current x (W - elapsed) is at most
     * (limit - cost) x W. A cost within the limit always fits by the window after that.
     */
    @Override
    long admittedAfterMs(LimitPolicy policy, SlidingCounts state, long now, long cost) {
        if (cost > policy.limit()) {
            return Verdict.NEVER;
        }
        long window = policy.windowMs();
        long room = (policy.limit() - state.current() - cost) * window;
        if (room >= 0 && state.previous() > 0) {
            long elapsed = window - room / state.previous();
            if (elapsed < window) {
                return state.windowStart() + elapsed - now;
            }
        }
        long next = state.windowStart() + window;
        if (state.current() == 0) {
            return next - now;
        }
        long elapsed = Math.max(0, window - (policy.limit() - cost) * window / state.current());
        return next + elapsed - now;
    }

    @Override
    SlidingCounts withDenying(SlidingCounts state, boolean denying) {
        return new SlidingCounts(state.windowStart(), state.previous(), state.current(), state.updatedAt(), denying);
    }

    @Override
    long idleFrom(LimitPolicy policy, SlidingCounts state) {
        return state.windowStart() + (state.current() > 0 ? 2 : 1) * policy.windowMs();
    }
}

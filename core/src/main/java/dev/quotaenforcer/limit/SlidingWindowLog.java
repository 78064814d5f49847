package dev.quotaenforcer.limit;

/**
 * Sliding window log: the time and cost of every admitted request still inside the window. Exact,
 * at the price of memory proportional to the limit (plan validation caps the limit).
 */
final class SlidingWindowLog extends Limiter<RequestLog> {

    SlidingWindowLog() {
        super(RequestLog.class);
    }

    @Override
    RequestLog fresh(LimitPolicy policy, long now) {
        return new RequestLog(new long[0], new long[0], now, false);
    }

    private static long newest(RequestLog state) {
        return state.time(state.size() - 1);
    }

    /** Drops the entries that left the window: an entry admitted at x counts during [x, x + W). */
    @Override
    RequestLog advance(LimitPolicy policy, RequestLog state, long now) {
        long oldestKept = now - policy.windowMs() + 1;
        int expired = 0;
        while (expired < state.size() && state.time(expired) < oldestKept) {
            expired++;
        }
        return state.withoutOldest(expired, now);
    }

    @Override
    boolean admits(LimitPolicy policy, RequestLog state, long now, long cost) {
        return cost <= policy.limit() - state.total();
    }

    @Override
    RequestLog consume(LimitPolicy policy, RequestLog state, long now, long cost) {
        return state.plus(now, cost);
    }

    @Override
    long remaining(LimitPolicy policy, RequestLog state, long now) {
        return Math.max(0, policy.limit() - state.total());
    }

    @Override
    long resetMs(LimitPolicy policy, RequestLog state, long now) {
        return state.size() == 0 ? 0 : newest(state) + policy.windowMs() - now;
    }

    /** Admitted when enough of the oldest entries have left the window to make room for the cost. */
    @Override
    long admittedAfterMs(LimitPolicy policy, RequestLog state, long now, long cost) {
        if (cost > policy.limit()) {
            return Verdict.NEVER;
        }
        long excess = state.total() + cost - policy.limit();
        long freed = 0;
        int i = 0;
        while (freed < excess) {
            freed += state.cost(i++);
        }
        return state.time(i - 1) + policy.windowMs() - now;
    }

    @Override
    RequestLog withDenying(RequestLog state, boolean denying) {
        return state.at(state.updatedAt(), denying);
    }

    @Override
    long idleFrom(LimitPolicy policy, RequestLog state) {
        return state.size() == 0 ? Long.MIN_VALUE : newest(state) + policy.windowMs();
    }
}

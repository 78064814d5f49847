package dev.quotaenforcer.limit;

/**
 * Fixed window: one counter per window aligned to multiples of the window length since the epoch
 * (UTC), so {@code PT1H} is the calendar hour. Cheapest, but admits up to twice the limit across a
 * window boundary.
 */
final class FixedWindow extends Limiter<WindowCount> {

    FixedWindow() {
        super(WindowCount.class);
    }

    static long windowStart(LimitPolicy policy, long now) {
        return Math.floorDiv(now, policy.windowMs()) * policy.windowMs();
    }

    @Override
    WindowCount fresh(LimitPolicy policy, long now) {
        return new WindowCount(windowStart(policy, now), 0, now, false);
    }

    @Override
    WindowCount advance(LimitPolicy policy, WindowCount state, long now) {
        if (windowStart(policy, now) != state.windowStart()) {
            return fresh(policy, now);
        }
        return new WindowCount(state.windowStart(), state.used(), now, state.denying());
    }

    @Override
    boolean admits(LimitPolicy policy, WindowCount state, long now, long cost) {
        return cost <= policy.limit() - state.used();
    }

    @Override
    WindowCount consume(LimitPolicy policy, WindowCount state, long now, long cost) {
        return new WindowCount(state.windowStart(), state.used() + cost, now, state.denying());
    }

    @Override
    long remaining(LimitPolicy policy, WindowCount state, long now) {
        return Math.max(0, policy.limit() - state.used());
    }

    @Override
    long resetMs(LimitPolicy policy, WindowCount state, long now) {
        return state.windowStart() + policy.windowMs() - now;
    }

    /** A request the window cannot take fits the next one, if it fits the limit at all. */
    @Override
    long admittedAfterMs(LimitPolicy policy, WindowCount state, long now, long cost) {
        return cost > policy.limit() ? Verdict.NEVER : state.windowStart() + policy.windowMs() - now;
    }

    @Override
    WindowCount withDenying(WindowCount state, boolean denying) {
        return new WindowCount(state.windowStart(), state.used(), state.updatedAt(), denying);
    }

    @Override
    long idleFrom(LimitPolicy policy, WindowCount state) {
        return state.windowStart() + policy.windowMs();
    }

    @Override
    boolean admissionEndsDenialRun() {
        return false;
    }
}

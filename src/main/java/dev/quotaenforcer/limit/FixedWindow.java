package dev.quotaenforcer.limit;

/**
 * Fixed window: one counter per window aligned to multiples of the window length since the epoch
 * (UTC), so {@code PT1H} is the calendar hour. Cheapest, but admits up to twice the limit across a
 * window boundary.
 */
final class FixedWindow extends Limiter<FixedWindow.State> {

    /** Cost used in the window starting at {@code windowStart}. */
    public record State(long windowStart, long used, boolean denying) implements PolicyState {
    }

    FixedWindow() {
        super(State.class);
    }

    static long windowStart(LimitPolicy policy, long now) {
        return Math.floorDiv(now, policy.windowMs()) * policy.windowMs();
    }

    @Override
    State fresh(LimitPolicy policy, long now) {
        return new State(windowStart(policy, now), 0, false);
    }

    @Override
    long timeOf(State state) {
        return state.windowStart();
    }

    @Override
    State advance(LimitPolicy policy, State state, long now) {
        return windowStart(policy, now) == state.windowStart() ? state : fresh(policy, now);
    }

    @Override
    boolean admits(LimitPolicy policy, State state, long now, long cost) {
        return cost <= policy.limit() - state.used();
    }

    @Override
    State consume(LimitPolicy policy, State state, long now, long cost) {
        return new State(state.windowStart(), state.used() + cost, state.denying());
    }

    @Override
    long remaining(LimitPolicy policy, State state, long now) {
        return Math.max(0, policy.limit() - state.used());
    }

    @Override
    long resetMs(LimitPolicy policy, State state, long now) {
        return state.windowStart() + policy.windowMs() - now;
    }

    @Override
    long horizonMs(LimitPolicy policy) {
        return policy.windowMs();
    }

    @Override
    State withDenying(State state, boolean denying) {
        return new State(state.windowStart(), state.used(), denying);
    }

    @Override
    long idleFrom(LimitPolicy policy, State state) {
        return state.windowStart() + policy.windowMs();
    }

    @Override
    boolean admissionEndsDenialRun() {
        return false;
    }
}

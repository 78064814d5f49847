package dev.quotaenforcer.limit;

import java.util.Arrays;

/**
 * Sliding window log: the time and cost of every admitted request still inside the window. Exact,
 * at the price of memory proportional to the limit (plan validation caps the limit).
 */
final class SlidingWindowLog extends Limiter<SlidingWindowLog.State> {

    /**
     * Admitted requests in time order; {@code costs[i]} was admitted at {@code times[i]}. The arrays
     * are never mutated after construction.
     */
    public record State(long[] times, long[] costs, boolean denying) implements PolicyState {

        static final State EMPTY = new State(new long[0], new long[0], false);

        public State {
            if (times.length != costs.length) {
                throw new IllegalArgumentException("times and costs differ in length");
            }
        }

        public int size() {
            return times.length;
        }

        long total() {
            long total = 0;
            for (long cost : costs) {
                total += cost;
            }
            return total;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof State that && denying == that.denying
                    && Arrays.equals(times, that.times) && Arrays.equals(costs, that.costs);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(times) + Arrays.hashCode(costs) + (denying ? 1 : 0);
        }

        @Override
        public String toString() {
            return "State[times=" + Arrays.toString(times) + ", costs=" + Arrays.toString(costs)
                    + ", denying=" + denying + "]";
        }
    }

    SlidingWindowLog() {
        super(State.class);
    }

    @Override
    State fresh(LimitPolicy policy, long now) {
        return State.EMPTY;
    }

    @Override
    long timeOf(State state) {
        return state.size() == 0 ? Long.MIN_VALUE : state.times()[state.size() - 1];
    }

    /** Drops the entries that left the window: an entry admitted at x counts during [x, x + W). */
    @Override
    State advance(LimitPolicy policy, State state, long now) {
        long oldestKept = now - policy.windowMs() + 1;
        int first = 0;
        while (first < state.size() && state.times()[first] < oldestKept) {
            first++;
        }
        if (first == 0) {
            return state;
        }
        return new State(Arrays.copyOfRange(state.times(), first, state.size()),
                Arrays.copyOfRange(state.costs(), first, state.size()), state.denying());
    }

    @Override
    boolean admits(LimitPolicy policy, State state, long now, long cost) {
        return cost <= policy.limit() - state.total();
    }

    @Override
    State consume(LimitPolicy policy, State state, long now, long cost) {
        int n = state.size();
        if (n > 0 && state.times()[n - 1] == now) {
            long[] costs = state.costs().clone();
            costs[n - 1] += cost;
            return new State(state.times(), costs, state.denying());
        }
        long[] times = Arrays.copyOf(state.times(), n + 1);
        long[] costs = Arrays.copyOf(state.costs(), n + 1);
        times[n] = now;
        costs[n] = cost;
        return new State(times, costs, state.denying());
    }

    @Override
    long remaining(LimitPolicy policy, State state, long now) {
        return Math.max(0, policy.limit() - state.total());
    }

    @Override
    long resetMs(LimitPolicy policy, State state, long now) {
        return state.size() == 0 ? 0 : timeOf(state) + policy.windowMs() - now;
    }

    @Override
    long horizonMs(LimitPolicy policy) {
        return policy.windowMs();
    }

    @Override
    State withDenying(State state, boolean denying) {
        return state.denying() == denying ? state : new State(state.times(), state.costs(), denying);
    }

    @Override
    long idleFrom(LimitPolicy policy, State state) {
        return state.size() == 0 ? Long.MIN_VALUE : timeOf(state) + policy.windowMs();
    }
}

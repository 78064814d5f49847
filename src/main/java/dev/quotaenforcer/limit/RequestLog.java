package dev.quotaenforcer.limit;

import java.util.Arrays;

/**
 * Admitted requests in time order; {@code costs[i]} was admitted at {@code times[i]}. The arrays
 * are never mutated after construction.
 */
public record RequestLog(long[] times, long[] costs, long updatedAt, boolean denying) implements PolicyState {

    public RequestLog {
        if (times.length != costs.length) {
            throw new IllegalArgumentException("times and costs differ in length");
        }
    }

    public int size() {
        return times.length;
    }

    public long total() {
        long total = 0;
        for (long cost : costs) {
            total += cost;
        }
        return total;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RequestLog that && denying == that.denying && updatedAt == that.updatedAt
                && Arrays.equals(times, that.times) && Arrays.equals(costs, that.costs);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(times) + Arrays.hashCode(costs)) + Long.hashCode(updatedAt) + (denying ? 1 : 0);
    }

    @Override
    public String toString() {
        return "RequestLog[times=" + Arrays.toString(times) + ", costs=" + Arrays.toString(costs)
                + ", updatedAt=" + updatedAt + ", denying=" + denying + "]";
    }
}

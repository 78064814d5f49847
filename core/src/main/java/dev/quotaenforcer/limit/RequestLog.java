package dev.quotaenforcer.limit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Admitted requests in time order; the i-th entry's cost was admitted at its time. Immutable as a
 * value: what {@link #times()} and {@link #costs()} return never changes.
 *
 * <p>A decision must not copy the whole log, or a log of a few hundred entries costs microseconds
 * per decision. So a log is a slice of a shared append-only buffer: dropping expired entries moves
 * the slice's start, and admitting a request writes the next free slot when this log is the one that
 * ends there (any other log that would append at the same slot copies instead). A written slot is
 * never written again, so every log keeps its entries. The total cost is carried along, not summed.
 */
public final class RequestLog implements PolicyState {

    /** Entry storage shared by logs that are slices of it; slots below {@code used} are written once and final. */
    private static final class Buffer {
        private static final VarHandle USED;

        static {
            try {
                USED = MethodHandles.lookup().findVarHandle(Buffer.class, "used", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final long[] times;
        final long[] costs;
        /** Read and written only through {@link #USED}. */
        private volatile int used;

        Buffer(long[] times, long[] costs, int used) {
            this.times = times;
            this.costs = costs;
            this.used = used;
        }

        /** Takes slot {@code at} for the log ending there, if no other log took it and there is room. */
        boolean claim(int at) {
            return at < times.length && USED.compareAndSet(this, at, at + 1);
        }
    }

    private final Buffer buffer;
    private final int from;
    private final int to;
    private final long total;
    private final long updatedAt;
    private final boolean denying;
    /** The slice as exact arrays, made on first request: the state codec reads them entry by entry. */
    private volatile long[] exactTimes;
    private volatile long[] exactCosts;

    /** A log of these entries; the arrays are kept as they are and never written to. */
    public RequestLog(long[] times, long[] costs, long updatedAt, boolean denying) {
        this(new Buffer(times, costs, checkedLength(times, costs)), 0, times.length, sum(costs), updatedAt, denying);
    }

    private RequestLog(Buffer buffer, int from, int to, long total, long updatedAt, boolean denying) {
        this.buffer = buffer;
        this.from = from;
        this.to = to;
        this.total = total;
        this.updatedAt = updatedAt;
        this.denying = denying;
    }

    private static int checkedLength(long[] times, long[] costs) {
        if (times.length != costs.length) {
            throw new IllegalArgumentException("times and costs differ in length");
        }
        return times.length;
    }

    private static long sum(long[] costs) {
        long total = 0;
        for (long cost : costs) {
            total += cost;
        }
        return total;
    }

    /** The admission times, oldest first (a copy when this log is a slice of a longer buffer). */
    public long[] times() {
        long[] times = exactTimes;
        if (times == null) {
            exactTimes = times = slice(buffer.times);
        }
        return times;
    }

    /** The costs, in the order of {@link #times()}. */
    public long[] costs() {
        long[] costs = exactCosts;
        if (costs == null) {
            exactCosts = costs = slice(buffer.costs);
        }
        return costs;
    }

    /** This log's part of a buffer array, as it is when the log spans all of it. */
    private long[] slice(long[] array) {
        return from == 0 && to == array.length ? array : Arrays.copyOfRange(array, from, to);
    }

    public int size() {
        return to - from;
    }

    public long total() {
        return total;
    }

    @Override
    public long updatedAt() {
        return updatedAt;
    }

    @Override
    public boolean denying() {
        return denying;
    }

    long time(int i) {
        return buffer.times[from + i];
    }

    long cost(int i) {
        return buffer.costs[from + i];
    }

    RequestLog at(long time, boolean denyingThen) {
        return new RequestLog(buffer, from, to, total, time, denyingThen);
    }

    /** This log without its first {@code count} entries, as of {@code time}. */
    RequestLog withoutOldest(int count, long time) {
        long dropped = 0;
        for (int i = from; i < from + count; i++) {
            dropped += buffer.costs[i];
        }
        return new RequestLog(buffer, from + count, to, total - dropped, time, denying);
    }

    /** This log with {@code cost} admitted at {@code time} (added to the newest entry when it has that time). */
    RequestLog plus(long time, long cost) {
        int n = size();
        if (n > 0 && time(n - 1) == time) {
            long[] costs = costs().clone();
            costs[n - 1] += cost;
            return new RequestLog(new Buffer(times(), costs, n), 0, n, total + cost, time, denying);
        }
        if (buffer.claim(to)) {
            buffer.times[to] = time;
            buffer.costs[to] = cost;
            return new RequestLog(buffer, from, to + 1, total + cost, time, denying);
        }
        // Room for as many again, so appends stay amortized O(1) however long the log lives.
        int capacity = Math.max(8, 2 * (n + 1));
        long[] times = Arrays.copyOfRange(buffer.times, from, from + capacity);
        long[] costs = Arrays.copyOfRange(buffer.costs, from, from + capacity);
        times[n] = time;
        costs[n] = cost;
        return new RequestLog(new Buffer(times, costs, n + 1), 0, n + 1, total + cost, time, denying);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RequestLog that && denying == that.denying && updatedAt == that.updatedAt
                && Arrays.equals(buffer.times, from, to, that.buffer.times, that.from, that.to)
                && Arrays.equals(buffer.costs, from, to, that.buffer.costs, that.from, that.to);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(times()) + Arrays.hashCode(costs())) + Long.hashCode(updatedAt) + (denying ? 1 : 0);
    }

    @Override
    public String toString() {
        return "RequestLog[times=" + Arrays.toString(times()) + ", costs=" + Arrays.toString(costs())
                + ", updatedAt=" + updatedAt + ", denying=" + denying + "]";
    }
}

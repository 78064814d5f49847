package dev.quotaenforcer.topology;

/**
 * When a task's usage writes are due: once per interval, at a phase of the interval set by the task's
 * partition, so that the tasks of one stream thread write in turn rather than all in one pass (their
 * writes, up to 23 ms each under exactly-once at 5k/s, stopped the thread for their sum once a second).
 * Time is passed in.
 */
final class UsageWriteSchedule {

    /** How many phases the interval is split into: tasks whose partitions differ by this share one. */
    static final int PHASES = 10;

    private final long intervalMs;
    private long next;

    /** The schedule of the task of {@code partition}, started at {@code startMs}: its first write is due an interval and its phase later. */
    UsageWriteSchedule(long intervalMs, int partition, long startMs) {
        this.intervalMs = intervalMs;
        this.next = startMs + intervalMs + phaseMs(intervalMs) * (partition % PHASES);
    }

    /** How often to ask {@link #due}: one phase, at least 1 ms. */
    static long phaseMs(long intervalMs) {
        return Math.max(1, intervalMs / PHASES);
    }

    /**
     * Whether a write is due at {@code nowMs}; when it is, the next one is an interval later, and
     * intervals missed while the thread was held up are skipped, keeping the phase.
     */
    boolean due(long nowMs) {
        if (nowMs < next) {
            return false;
        }
        next += ((nowMs - next) / intervalMs + 1) * intervalMs;
        return true;
    }
}

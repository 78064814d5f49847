package dev.quotaenforcer.topology;

/**
 * When a task's first usage write is due: an interval after it starts and a phase of the interval set
 * by its partition, so that the tasks of one stream thread write in turn rather than all in one pass
 * (their writes, up to 23 ms each under exactly-once at 5k/s, stopped the thread for their sum once a
 * second). Kafka Streams' wall-clock punctuation then keeps that phase, skipping intervals the thread missed.
 */
final class UsageWriteSchedule {

    /** How many phases the interval is split into: tasks whose partitions differ by this share one. */
    static final int PHASES = 10;

    private UsageWriteSchedule() {
    }

    /** Milliseconds from the start of the task of {@code partition} to its first write. */
    static long firstDelayMs(long intervalMs, int partition) {
        return intervalMs + intervalMs / PHASES * (partition % PHASES);
    }
}

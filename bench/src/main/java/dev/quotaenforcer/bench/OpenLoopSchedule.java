package dev.quotaenforcer.bench;

/**
 * When each request of an open-loop load is meant to be sent: evenly spaced at a fixed rate from a
 * start, whatever happened to the requests before it. Latency is measured from these intended times,
 * not from when a late sender got round to it, so a stall is charged to every request it delayed
 * (no coordinated omission).
 */
record OpenLoopSchedule(long startNanos, double perSecond) {

    OpenLoopSchedule {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate must be positive: " + perSecond);
        }
    }

    /** The intended send time of request {@code index} (from 0), in the nanoTime scale of {@code startNanos}. */
    long intendedNanos(long index) {
        return startNanos + Math.round(index * 1e9 / perSecond);
    }

    /** How many requests are intended within {@code nanos} of the start. */
    long countWithin(long nanos) {
        return (long) Math.ceil(nanos * perSecond / 1e9);
    }
}

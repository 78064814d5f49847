package dev.quotaenforcer.limit;

/**
 * Sliding-window-counter state: the counts of the window starting at {@code windowStart} and of the
 * one before, as decided at {@code updatedAt}.
 */
public record SlidingCounts(long windowStart, long previous, long current, long updatedAt, boolean denying)
        implements PolicyState {
}

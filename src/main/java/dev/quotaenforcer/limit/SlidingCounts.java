package dev.quotaenforcer.limit;

/** Sliding-window-counter state: the counts of the window starting at {@code windowStart} and of the one before. */
public record SlidingCounts(long windowStart, long previous, long current, boolean denying) implements PolicyState {
}

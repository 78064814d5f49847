package dev.quotaenforcer.limit;

/** Fixed-window state: the cost used in the window starting at {@code windowStart}. */
public record WindowCount(long windowStart, long used, boolean denying) implements PolicyState {
}

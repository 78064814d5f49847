package dev.quotaenforcer.limit;

/**
 * Fixed-window state: the cost used in the window starting at {@code windowStart}, as decided at
 * {@code updatedAt}.
 */
public record WindowCount(long windowStart, long used, long updatedAt, boolean denying) implements PolicyState {
}

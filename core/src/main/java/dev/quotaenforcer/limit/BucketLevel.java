package dev.quotaenforcer.limit;

/**
 * The state of a token or leaky bucket: its level in units of 1/{@code periodMs} of a token (so
 * refill per millisecond is the whole number {@link RefillRate#tokens()}), as of {@code updatedAt}.
 * For a token bucket the level is the tokens available; for a leaky bucket, the queued work.
 */
public record BucketLevel(long level, long updatedAt, boolean denying) implements PolicyState {
}

package dev.quotaenforcer.limit;

import java.util.Arrays;
import java.util.Optional;

/** The limit algorithms a policy can name, with the identifier used in plan JSON. */
public enum Algorithm {
    FIXED_WINDOW("fixed-window", true, new FixedWindow()),
    SLIDING_WINDOW_LOG("sliding-window-log", true, new SlidingWindowLog()),
    SLIDING_WINDOW_COUNTER("sliding-window-counter", true, new SlidingWindowCounter()),
    TOKEN_BUCKET("token-bucket", false, new TokenBucket()),
    LEAKY_BUCKET("leaky-bucket", false, new LeakyBucket());

    private final String id;
    private final boolean windowed;
    private final Limiter<?> limiter;

    Algorithm(String id, boolean windowed, Limiter<?> limiter) {
        this.id = id;
        this.windowed = windowed;
        this.limiter = limiter;
    }

    /** The name used in plans, e.g. {@code sliding-window-counter}. */
    public String id() {
        return id;
    }

    /** True when the policy is configured by {@code limit} + {@code window}, false for buckets. */
    public boolean windowed() {
        return windowed;
    }

    Limiter<?> limiter() {
        return limiter;
    }

    public static Optional<Algorithm> fromId(String id) {
        return Arrays.stream(values()).filter(a -> a.id.equals(id)).findFirst();
    }

    @Override
    public String toString() {
        return id;
    }
}

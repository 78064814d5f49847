package dev.quotaenforcer.limit;

/** The counted state of one policy for one key; immutable, produced and consumed by its algorithm. */
public sealed interface PolicyState
        permits WindowCount, SlidingCounts, RequestLog, BucketLevel {

    /** True while the policy is inside a run of denials (fixed window: has denied in this window). */
    boolean denying();

    /**
     * The event time this state was last decided at. A later event older than this is decided at
     * this time instead, so a policy's time never runs backwards.
     */
    long updatedAt();
}

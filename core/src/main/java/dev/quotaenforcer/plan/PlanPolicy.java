package dev.quotaenforcer.plan;

import dev.quotaenforcer.limit.LimitPolicy;

/**
 * A policy as it sits in a plan: the limit, whether it is a rate limit or the quota, and the tag
 * that identifies its counted state. The tag depends only on name and algorithm, so a plan change
 * that keeps both keeps the count (a mid-hour upgrade from 1000 to 5000 keeps what was used).
 */
public record PlanPolicy(LimitPolicy limit, PolicyKind kind, int tag) {

    public PlanPolicy(LimitPolicy limit, PolicyKind kind) {
        this(limit, kind, tagOf(limit));
    }

    public String name() {
        return limit.name();
    }

    /** A well-mixed hash of name and algorithm; plans with two policies of the same tag are rejected. */
    public static int tagOf(LimitPolicy limit) {
        int h = (limit.name() + '\u0000' + limit.algorithm().id()).hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}

package dev.quotaenforcer.event;

/** Why a request was allowed or denied. */
public enum Reason {
    OK,
    RATE_LIMITED,
    QUOTA_EXCEEDED,
    UNKNOWN_API_KEY,
    UNKNOWN_PLAN,
    INVALID_REQUEST,
    /** An operator blocked the key (a {@code block} command): denied without counting, until unblocked or the block ends. */
    BLOCKED,
    /** Never from the enforcer: a gateway client's failure policy decided because no decision came in time. */
    UNAVAILABLE
}

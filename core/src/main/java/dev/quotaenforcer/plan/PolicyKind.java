package dev.quotaenforcer.plan;

/** Whether a policy is a short-term rate limit or the plan's contractual quota. */
public enum PolicyKind {
    RATE,
    QUOTA
}

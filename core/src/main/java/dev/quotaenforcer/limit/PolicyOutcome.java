package dev.quotaenforcer.limit;

/** What deciding one request against one policy produced: the verdict and the policy's new state. */
public record PolicyOutcome(Verdict verdict, PolicyState state) {
}

package dev.quotaenforcer.engine;

import dev.quotaenforcer.limit.Standing;
import dev.quotaenforcer.plan.PlanPolicy;

/** One policy of a key's plan and where the key stands against it. */
public record PolicyStanding(PlanPolicy policy, Standing standing) {
}

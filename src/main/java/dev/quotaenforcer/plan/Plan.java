package dev.quotaenforcer.plan;

import java.util.List;

/** A validated plan: its id and the policies every request of its keys must pass, quota last. */
public record Plan(String id, List<PlanPolicy> policies) {

    public Plan {
        policies = List.copyOf(policies);
    }
}

package dev.quotaenforcer.plan;

import java.util.List;

/** A validated plan: its id and the policies every request of its keys must pass, quota last. */
public record Plan(String id, List<PlanPolicy> policies) {

    public Plan {
        policies = List.copyOf(policies);
    }

    /** The limit of the plan's quota policy, or 0 when it has none. */
    public long quotaLimit() {
        // Indexed: asked per decision, where the list's iterator was not scalar-replaced.
        for (int i = 0; i < policies.size(); i++) {
            PlanPolicy policy = policies.get(i);
            if (policy.kind() == PolicyKind.QUOTA) {
                return policy.limit().limit();
            }
        }
        return 0;
    }
}

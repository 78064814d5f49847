package dev.quotaenforcer.client;

import dev.quotaenforcer.event.Decision;

/**
 * A decision as a gateway gets it from {@link QuotaClient}: the enforcer's, or, when none arrived in
 * time, one made by the client's failure policy (reason UNAVAILABLE, {@code byFailurePolicy} true).
 */
public record GatewayDecision(Decision decision, boolean byFailurePolicy) {

    public boolean allowed() {
        return decision.allowed();
    }
}

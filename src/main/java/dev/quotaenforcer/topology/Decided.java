package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import java.util.List;

/** The output of deciding one request: the decision and the quota-exceeded events it opened. */
public record Decided(Decision decision, List<QuotaExceeded> exceeded) {
}

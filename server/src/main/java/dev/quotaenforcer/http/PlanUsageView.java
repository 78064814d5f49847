package dev.quotaenforcer.http;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quotaenforcer.event.PlanUsage;
import java.time.Instant;
import java.util.List;

/**
 * The answer to {@code GET /plans/{plan}/usage}: the plan's figures for one calendar hour and its
 * keys nearest to or over quota, gathered from every instance.
 *
 * @param usage       the plan's hour; zeros when no key of it made a counted request
 * @param topKeys     keys with the largest share of their quota used, largest first
 * @param unreachable instances that did not answer, so {@code topKeys} may miss their keys
 */
@JsonPropertyOrder({"plan", "hour", "usage", "topKeys", "unreachable"})
public record PlanUsageView(String plan, Instant hour, PlanUsage usage, List<TopKey> topKeys, List<String> unreachable) {
}

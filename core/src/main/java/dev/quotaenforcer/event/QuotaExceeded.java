package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quotaenforcer.plan.PolicyKind;
import java.time.Instant;

/**
 * Emitted once when a policy starts denying a key: once per window for fixed windows, once per run
 * of denials for sliding windows and buckets. Never one per denied request.
 *
 * @param windowStart start of the window that is exhausted; null for buckets
 * @param windowEnd   end of that window; null for buckets
 */
@JsonPropertyOrder({"apiKey", "plan", "policy", "kind", "limit", "windowStart", "windowEnd", "requestId", "time"})
public record QuotaExceeded(String apiKey, String plan, String policy, PolicyKind kind, long limit,
                            Instant windowStart, Instant windowEnd, String requestId, Instant time) {
}

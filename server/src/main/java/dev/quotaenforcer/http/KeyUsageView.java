package dev.quotaenforcer.http;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quotaenforcer.engine.PolicyStanding;
import dev.quotaenforcer.event.KeyUsage;
import java.time.Instant;
import java.util.List;

/**
 * The answer to {@code GET /usage/{apiKey}}: where the key stands against each policy of its plan,
 * and what it was allowed and denied in the calendar hour.
 *
 * @param at       the moment the standings are for
 * @param instance     the instance (Kafka Streams application.server) that owns the key and answered
 * @param blocked      whether an operator's block holds at {@code at}
 * @param blockedUntil when that block ends; null when it lasts until lifted (or there is none)
 * @param hour         the key's usage in the hour of {@code at}; null when it made no counted request in it
 */
@JsonPropertyOrder({"apiKey", "plan", "at", "instance", "blocked", "blockedUntil", "policies", "hour"})
public record KeyUsageView(String apiKey, String plan, Instant at, String instance, boolean blocked,
                           Instant blockedUntil, List<PolicyView> policies, KeyUsage hour) {

    /** One policy: its limit and what is used, left and when it resets. */
    @JsonPropertyOrder({"name", "kind", "algorithm", "limit", "used", "remaining", "resetSeconds"})
    public record PolicyView(String name, String kind, String algorithm, long limit, long used, long remaining,
                             long resetSeconds) {

        static PolicyView of(PolicyStanding standing) {
            return new PolicyView(standing.policy().name(), standing.policy().kind().name(),
                    standing.policy().limit().algorithm().id(), standing.standing().limit(), standing.standing().used(),
                    standing.standing().remaining(), standing.standing().resetSeconds());
        }
    }
}

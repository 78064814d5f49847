package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Duration;
import java.time.Instant;

/**
 * One API key's use of its contract in one calendar hour, as operators monitor it: requests and
 * cost allowed and denied, and the plan of its latest request with that plan's quota.
 *
 * @param quota       the limit of the plan's quota policy (0 when the plan has none); grants not included
 * @param hour        the start of the hour (UTC) the requests' event times fall in
 * @param quotaDenied requests denied because the contractual quota was spent
 */
@JsonPropertyOrder({"apiKey", "plan", "quota", "hour", "allowed", "denied", "allowedCost", "deniedCost", "quotaDenied"})
public record KeyUsage(String apiKey, String plan, long quota, Instant hour, long allowed, long denied, long allowedCost,
                       long deniedCost, long quotaDenied) {

    private static final long HOUR_MS = Duration.ofHours(1).toMillis();

    /** The usage of one decided request of {@code cost}, under a plan whose quota is {@code quota}. */
    public static KeyUsage of(Decision decision, long cost, long quota) {
        long time = decision.eventTime().toEpochMilli();
        Instant hour = Instant.ofEpochMilli(Math.floorDiv(time, HOUR_MS) * HOUR_MS);
        long quotaDenied = decision.reason() == Reason.QUOTA_EXCEEDED ? 1 : 0;
        return decision.allowed()
                ? new KeyUsage(decision.apiKey(), decision.plan(), quota, hour, 1, 0, cost, 0, 0)
                : new KeyUsage(decision.apiKey(), decision.plan(), quota, hour, 0, 1, 0, cost, quotaDenied);
    }
}

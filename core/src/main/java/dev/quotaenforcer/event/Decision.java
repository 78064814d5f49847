package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.Map;

/**
 * The answer to one request, with the header values the gateway sends back.
 *
 * @param policy            the binding policy: the one that denied, else the one with least remaining
 * @param retryAfterSeconds 0 when allowed; -1 when the cost exceeds what the plan can ever admit
 * @param delayMs           how long the gateway holds the request before forwarding (leaky bucket)
 * @param eventTime         the time the request was decided at
 * @param headers           exactly the HTTP headers the gateway should send
 */
@JsonPropertyOrder({"requestId", "apiKey", "plan", "allowed", "reason", "policy", "limit", "remaining",
        "resetSeconds", "retryAfterSeconds", "delayMs", "eventTime", "headers"})
public record Decision(String requestId, String apiKey, String plan, boolean allowed, Reason reason, String policy,
                       long limit, long remaining, long resetSeconds, long retryAfterSeconds, long delayMs,
                       Instant eventTime, Map<String, String> headers) {

    /** The same decision with these headers. */
    public Decision withHeaders(Map<String, String> headers) {
        return new Decision(requestId, apiKey, plan, allowed, reason, policy, limit, remaining, resetSeconds,
                retryAfterSeconds, delayMs, eventTime, headers);
    }

    /** A denial that no policy made: unknown key or plan, or an unreadable request. */
    public static Decision rejected(String requestId, String apiKey, String plan, Reason reason, long eventTime) {
        return new Decision(requestId, apiKey, plan, false, reason, null, 0, 0, 0, 0, 0,
                Instant.ofEpochMilli(eventTime), Map.of());
    }
}

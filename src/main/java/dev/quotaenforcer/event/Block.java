package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;

/**
 * An API key's requests are refused until {@code until}: published on the compacted blocks topic
 * when a run of denials starts, so gateways that cannot wait for decisions refuse locally.
 *
 * @param retryAfterSeconds from the denial that started the block, for the 429 a gateway answers
 */
@JsonPropertyOrder({"apiKey", "plan", "reason", "policy", "until", "retryAfterSeconds"})
public record Block(String apiKey, String plan, Reason reason, String policy, Instant until, long retryAfterSeconds) {

    /** Whether the block still holds at {@code now}. */
    public boolean holdsAt(Instant now) {
        return now.isBefore(until);
    }
}

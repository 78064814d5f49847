package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;

/**
 * An API key's requests are refused until {@code until}: published on the compacted blocks topic
 * when a run of denials starts or an operator blocks the key, so gateways that cannot wait for
 * decisions refuse locally. A tombstone (no value) for the key lifts it.
 *
 * @param policy            the denying policy; null for an operator's block ({@link Reason#BLOCKED})
 * @param until             when the block ends; null for an operator's block without end
 * @param retryAfterSeconds from the denial that started the block, for the 429 a gateway answers;
 *                          -1 when the block has no end
 */
@JsonPropertyOrder({"apiKey", "plan", "reason", "policy", "until", "retryAfterSeconds"})
public record Block(String apiKey, String plan, Reason reason, String policy, Instant until, long retryAfterSeconds) {

    /** The block a denial sets: until its Retry-After has passed. */
    public static Block of(Decision denial) {
        return new Block(denial.apiKey(), denial.plan(), denial.reason(), denial.policy(),
                denial.eventTime().plusSeconds(denial.retryAfterSeconds()), denial.retryAfterSeconds());
    }

    /** Whether the block still holds at {@code now}. */
    public boolean holdsAt(Instant now) {
        return until == null || now.isBefore(until);
    }
}

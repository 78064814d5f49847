package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One API request a gateway asks about: who (API key), which request, what it costs, and when.
 *
 * @param timestamp event time in epoch milliseconds (from the JSON, else the record timestamp)
 * @param replyTo   where the gateway waits for the decision, or null when it reads the decisions topic
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RequestEvent(String requestId, String apiKey, long cost, long timestamp, ReplyAddress replyTo) {

    public RequestEvent(String requestId, String apiKey, long cost, long timestamp) {
        this(requestId, apiKey, cost, timestamp, null);
    }

    /** This request with that reply address: itself when it has it already (none, for most). */
    public RequestEvent withReplyTo(ReplyAddress address) {
        return address == replyTo ? this : new RequestEvent(requestId, apiKey, cost, timestamp, address);
    }
}

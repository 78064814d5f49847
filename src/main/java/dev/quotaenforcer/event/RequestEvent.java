package dev.quotaenforcer.event;

/**
 * One API request a gateway asks about: who (API key), which request, what it costs, and when.
 *
 * @param timestamp event time in epoch milliseconds (from the JSON, else the record timestamp)
 */
public record RequestEvent(String requestId, String apiKey, long cost, long timestamp) {
}

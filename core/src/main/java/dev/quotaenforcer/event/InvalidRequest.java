package dev.quotaenforcer.event;

/**
 * A request event that cannot be decided, with what could still be read from it.
 *
 * @param error     a stable code for the kind of problem, e.g. {@code INVALID_JSON}
 * @param reason    what is wrong, naming the field and value
 * @param requestId the request id if one could be read, else null
 * @param apiKey    the API key if one could be read, else null
 */
public record InvalidRequest(String error, String reason, String requestId, String apiKey) {

    /** Whether the gateway can be told, i.e. the request can be answered with an INVALID_REQUEST decision. */
    public boolean answerable() {
        return requestId != null && apiKey != null;
    }
}

package dev.quotaenforcer.event;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.format.DateTimeParseException;

/**
 * Reads request event JSON leniently (unknown fields are ignored, so gateways may add their own)
 * but never guesses: a missing id or key, a wrong type or an absurd cost is reported, not repaired.
 */
public final class RequestParser {

    /** Longest request id or API key accepted. */
    public static final int MAX_ID_LENGTH = 256;
    /** Latest event time accepted, 9999-12-31T23:59:59.999Z; with times from 1970 on, time arithmetic never overflows. */
    static final long MAX_TIMESTAMP = 253_402_300_799_999L;

    private final ObjectMapper mapper = new ObjectMapper();
    private final int maxBytes;
    private final long maxCost;
    private final long maxAheadMs;

    /**
     * @param maxAheadMs how far an event's own timestamp may lie ahead of its record's timestamp; a
     *                   key's time never runs backwards, so one event from the future would hold
     *                   every later request of its key to that future time
     */
    public RequestParser(int maxBytes, long maxCost, long maxAheadMs) {
        this.maxBytes = maxBytes;
        this.maxCost = maxCost;
        this.maxAheadMs = maxAheadMs;
    }

    /** The outcome of reading one record: exactly one of {@code request} and {@code invalid} is set. */
    public record Parsed(RequestEvent request, InvalidRequest invalid) {
    }

    /**
     * @param json            the record value
     * @param recordTimestamp the record's timestamp, used when the JSON has none
     */
    public Parsed parse(byte[] json, long recordTimestamp) {
        if (json == null) {
            return invalid("EMPTY", "the record has no value", null, null);
        }
        if (json.length > maxBytes) {
            return invalid("OVERSIZE", "the value is " + json.length + " bytes; the limit is " + maxBytes, null, null);
        }
        JsonNode root;
        try {
            root = mapper.readTree(json);
        } catch (JacksonException e) {
            return invalid("INVALID_JSON", "not valid JSON: " + e.getOriginalMessage(), null, null);
        } catch (IOException e) {
            return invalid("INVALID_JSON", "unreadable: " + e.getMessage(), null, null);
        }
        if (root == null || !root.isObject()) {
            return invalid("INVALID_JSON", "must be a JSON object, got " + abbreviate(String.valueOf(root)), null, null);
        }
        String requestId = text(root.get("requestId"));
        String apiKey = text(root.get("apiKey"));
        String idProblem = idProblem("requestId", root.get("requestId"));
        if (idProblem == null) {
            idProblem = idProblem("apiKey", root.get("apiKey"));
        }
        if (idProblem != null) {
            return invalid("INVALID_FIELD", idProblem, requestId, apiKey);
        }
        JsonNode cost = root.get("cost");
        long costValue = 1;
        if (cost != null && !cost.isNull()) {
            if (!cost.isIntegralNumber() || !cost.canConvertToLong() || cost.longValue() < 1 || cost.longValue() > maxCost) {
                return invalid("INVALID_FIELD", "cost: " + abbreviate(cost.toString()) + " must be a whole number from 1 to "
                        + maxCost, requestId, apiKey);
            }
            costValue = cost.longValue();
        }
        JsonNode timestamp = root.get("timestamp");
        long time = recordTimestamp;
        if (timestamp != null && !timestamp.isNull()) {
            if (timestamp.isIntegralNumber() && timestamp.canConvertToLong()) {
                time = timestamp.longValue();
            } else if (timestamp.isTextual()) {
                try {
                    time = Timestamps.epochMillis(timestamp.textValue());
                } catch (DateTimeParseException | ArithmeticException e) {
                    return invalid("INVALID_FIELD", "timestamp: " + abbreviate(timestamp.toString())
                            + " is not an ISO-8601 date-time with offset", requestId, apiKey);
                }
            } else {
                return invalid("INVALID_FIELD", "timestamp: " + abbreviate(timestamp.toString())
                        + " must be an ISO-8601 string or epoch milliseconds", requestId, apiKey);
            }
        }
        if (time < 0 || time > MAX_TIMESTAMP) {
            return invalid("INVALID_FIELD", "timestamp: " + abbreviate(String.valueOf(timestamp == null ? time : timestamp))
                    + " is outside 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z", requestId, apiKey);
        }
        if (time - recordTimestamp > maxAheadMs) {
            return invalid("INVALID_FIELD", "timestamp: " + abbreviate(timestamp.toString()) + " is " + (time - recordTimestamp)
                    + " ms ahead of the record's timestamp; at most " + maxAheadMs + " ms is accepted", requestId, apiKey);
        }
        return new Parsed(new RequestEvent(requestId, apiKey, costValue, time), null);
    }

    static String idProblem(String field, JsonNode value) {
        if (value == null || value.isNull()) {
            return field + ": is missing";
        }
        if (!value.isTextual() || value.textValue().isEmpty() || value.textValue().length() > MAX_ID_LENGTH) {
            return field + ": " + abbreviate(value.toString()) + " must be a string of 1 to " + MAX_ID_LENGTH + " characters";
        }
        return null;
    }

    private static String text(JsonNode value) {
        if (value == null || !value.isTextual() || value.textValue().isEmpty() || value.textValue().length() > MAX_ID_LENGTH) {
            return null;
        }
        return value.textValue();
    }

    private static Parsed invalid(String error, String reason, String requestId, String apiKey) {
        return new Parsed(null, new InvalidRequest(error, reason, requestId, apiKey));
    }

    static String abbreviate(String value) {
        return value.length() <= 80 ? value : value.substring(0, 77) + "...";
    }
}

package dev.quotaenforcer.event;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
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
    public static final long MAX_TIMESTAMP = 253_402_300_799_999L;

    private static final int REQUEST_ID = 1;
    private static final int API_KEY = 2;
    private static final int COST = 4;
    private static final int TIMESTAMP = 8;

    private final ObjectMapper mapper = new ObjectMapper();
    private final JsonFactory factory = mapper.getFactory();
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

    /** The outcome of reading one record: a request, or why the record is none. */
    public sealed interface Parsed permits Parsed.Accepted, Parsed.Rejected {

        /** A record that reads as a request. */
        record Accepted(RequestEvent request) implements Parsed {
        }

        /** A record that is no request, and what is wrong with it. */
        record Rejected(InvalidRequest invalid) implements Parsed {
        }
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
        RequestEvent wellFormed = RequestScanner.read(json, recordTimestamp, maxCost, maxAheadMs);
        if (wellFormed == null) {
            wellFormed = readWellFormed(json, recordTimestamp);
        }
        return wellFormed != null ? new Parsed.Accepted(wellFormed) : readExplaining(json, recordTimestamp);
    }

    /**
     * The common case, read token by token without building a tree: an object whose known fields each
     * appear once with an acceptable value. Anything else yields null and is left to
     * {@link #readExplaining}, so each rejection is worded in one place. {@link RequestScanner} reads
     * the plainest of these first, for less.
     */
    RequestEvent readWellFormed(byte[] json, long recordTimestamp) {
        try (JsonParser parser = factory.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String requestId = null;
            String apiKey = null;
            long cost = 1;
            long time = recordTimestamp;
            int seen = 0;
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                int field = switch (parser.currentName()) {
                    case "requestId" -> REQUEST_ID;
                    case "apiKey" -> API_KEY;
                    case "cost" -> COST;
                    case "timestamp" -> TIMESTAMP;
                    default -> 0;
                };
                JsonToken value = parser.nextToken();
                if ((seen & field) != 0) {
                    return null;
                }
                seen |= field;
                switch (field) {
                    case REQUEST_ID -> requestId = acceptableId(parser, value);
                    case API_KEY -> apiKey = acceptableId(parser, value);
                    case COST -> {
                        if (value != JsonToken.VALUE_NULL) {
                            cost = isLong(parser, value) ? parser.getLongValue() : 0;
                            if (cost < 1 || cost > maxCost) {
                                return null;
                            }
                        }
                    }
                    case TIMESTAMP -> {
                        if (isLong(parser, value)) {
                            time = parser.getLongValue();
                        } else if (value == JsonToken.VALUE_STRING) {
                            time = Timestamps.epochMillis(parser.getText());
                        } else if (value != JsonToken.VALUE_NULL) {
                            return null;
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
            boolean acceptable = token == JsonToken.END_OBJECT && requestId != null && apiKey != null
                    && time >= 0 && time <= MAX_TIMESTAMP && time - recordTimestamp <= maxAheadMs;
            return acceptable ? new RequestEvent(requestId, apiKey, cost, time) : null;
        } catch (IOException | DateTimeParseException | ArithmeticException e) {
            return null;
        }
    }

    private static String acceptableId(JsonParser parser, JsonToken value) throws IOException {
        if (value != JsonToken.VALUE_STRING) {
            return null;
        }
        String id = parser.getText();
        return id.isEmpty() || id.length() > MAX_ID_LENGTH ? null : id;
    }

    private static boolean isLong(JsonParser parser, JsonToken value) throws IOException {
        return value == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
    }

    /** Reads any value as a tree, to say precisely what is wrong with it. */
    Parsed readExplaining(byte[] json, long recordTimestamp) {
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
        return new Parsed.Accepted(new RequestEvent(requestId, apiKey, costValue, time));
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
        return new Parsed.Rejected(new InvalidRequest(error, reason, requestId, apiKey));
    }

    /** The text itself up to 80 characters, else its first 77 and an ellipsis: how values are quoted in reasons. */
    public static String abbreviate(String value) {
        return value.length() <= 80 ? value : value.substring(0, 77) + "...";
    }
}

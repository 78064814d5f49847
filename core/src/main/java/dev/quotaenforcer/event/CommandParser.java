package dev.quotaenforcer.event;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * Reads admin command JSON strictly: a command changes what a key may do, so a field that does not
 * belong to its type, a missing one or a wrong value is reported, never ignored or repaired. Fields
 * no command knows are ignored, as in requests, so tools may add their own.
 */
public final class CommandParser {

    /** Largest amount one grant may add. */
    public static final long MAX_GRANT = 1_000_000_000L;
    /** Longest free-text reason accepted. */
    static final int MAX_REASON_LENGTH = 1024;

    private final ObjectMapper mapper = new ObjectMapper();
    private final int maxBytes;

    public CommandParser(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The outcome of reading one record: the command, or an error code and what is wrong. */
    public sealed interface Parsed permits Parsed.Accepted, Parsed.Rejected {

        /** A record that reads as a command. */
        record Accepted(KeyCommand command) implements Parsed {
        }

        /** A record that is no command: an error code and what is wrong. */
        record Rejected(String error, String reason) implements Parsed {
        }
    }

    public Parsed parse(byte[] json) {
        if (json == null) {
            return invalid("EMPTY", "the record has no value");
        }
        if (json.length > maxBytes) {
            return invalid("OVERSIZE", "the value is " + json.length + " bytes; the limit is " + maxBytes);
        }
        JsonNode root;
        try {
            root = mapper.readTree(json);
        } catch (JacksonException e) {
            return invalid("INVALID_JSON", "not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return invalid("INVALID_JSON", "unreadable: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            return invalid("INVALID_JSON", "must be a JSON object, got " + RequestParser.abbreviate(String.valueOf(root)));
        }
        try {
            return new Parsed.Accepted(read(root));
        } catch (IllegalArgumentException e) {
            return invalid("INVALID_FIELD", e.getMessage());
        }
    }

    private static KeyCommand read(JsonNode root) {
        KeyCommand.Type type = type(root.get("type"));
        String apiKey = id(root, "apiKey", true);
        String policy = id(root, "policy", type == KeyCommand.Type.GRANT);
        Long amount = amount(root.get("amount"), type == KeyCommand.Type.GRANT);
        Instant until = until(root.get("until"));
        onlyFor(root, "policy", type, KeyCommand.Type.RESET, KeyCommand.Type.GRANT);
        onlyFor(root, "amount", type, KeyCommand.Type.GRANT);
        onlyFor(root, "until", type, KeyCommand.Type.BLOCK);
        return new KeyCommand(type, apiKey, policy, amount, until, id(root, "commandId", false), id(root, "issuer", false),
                reason(root.get("reason")));
    }

    private static KeyCommand.Type type(JsonNode value) {
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("type: is missing");
        }
        List<String> types = List.of(KeyCommand.Type.values()).stream().map(KeyCommand.Type::id).toList();
        if (!value.isTextual() || !types.contains(value.textValue().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("type: " + RequestParser.abbreviate(value.toString()) + " must be one of "
                    + String.join(", ", types));
        }
        return KeyCommand.Type.of(value.textValue().toLowerCase(Locale.ROOT));
    }

    private static String id(JsonNode root, String field, boolean required) {
        JsonNode value = root.get(field);
        if (!required && (value == null || value.isNull())) {
            return null;
        }
        String problem = RequestParser.idProblem(field, value);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return value.textValue();
    }

    private static Long amount(JsonNode value, boolean required) {
        if (value == null || value.isNull()) {
            if (required) {
                throw new IllegalArgumentException("amount: is missing");
            }
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 1 || value.longValue() > MAX_GRANT) {
            throw new IllegalArgumentException("amount: " + RequestParser.abbreviate(value.toString())
                    + " must be a whole number from 1 to " + MAX_GRANT);
        }
        return value.longValue();
    }

    private static Instant until(JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        String problem = "until: " + RequestParser.abbreviate(value.toString())
                + " must be an ISO-8601 date-time with offset, e.g. 2026-12-01T00:00:00Z";
        if (!value.isTextual()) {
            throw new IllegalArgumentException(problem);
        }
        try {
            return OffsetDateTime.parse(value.textValue()).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(problem, e);
        }
    }

    private static String reason(JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual() || value.textValue().length() > MAX_REASON_LENGTH) {
            throw new IllegalArgumentException("reason: " + RequestParser.abbreviate(value.toString())
                    + " must be a string of at most " + MAX_REASON_LENGTH + " characters");
        }
        return value.textValue();
    }

    private static void onlyFor(JsonNode root, String field, KeyCommand.Type type, KeyCommand.Type... types) {
        JsonNode value = root.get(field);
        if (value != null && !value.isNull() && !List.of(types).contains(type)) {
            throw new IllegalArgumentException(field + ": " + type.id() + " takes no " + field);
        }
    }

    private static Parsed invalid(String error, String reason) {
        return new Parsed.Rejected(error, reason);
    }
}

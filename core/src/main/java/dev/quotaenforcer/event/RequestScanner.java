package dev.quotaenforcer.event;

import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeParseException;

/**
 * Reads the request JSON gateways send, byte by byte, without a parser object per record: an
 * object of ASCII strings without escapes, whole numbers and literals. It answers only what it is
 * sure of: an acceptable request, or null for anything else (an escape, a non-ASCII byte, a nested
 * value, a duplicate or unacceptable field, trailing text), which Jackson then reads as before. So
 * every record it reads, Jackson would have read into the same request.
 */
final class RequestScanner {

    private static final byte[] REQUEST_ID = "requestId".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] API_KEY = "apiKey".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COST = "cost".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TIMESTAMP = "timestamp".getBytes(StandardCharsets.US_ASCII);
    /** Longest whole number read here: 18 digits never overflow a long. */
    private static final int MAX_DIGITS = 18;

    private final byte[] json;
    private int at;

    private RequestScanner(byte[] json) {
        this.json = json;
    }

    /**
     * The request in {@code json}, or null when this reader is not sure of it.
     *
     * @see RequestParser#parse the rules it applies
     */
    static RequestEvent read(byte[] json, long recordTimestamp, long maxCost, long maxAheadMs) {
        try {
            return new RequestScanner(json).request(recordTimestamp, maxCost, maxAheadMs);
        } catch (DateTimeParseException | ArithmeticException e) {
            return null;
        }
    }

    private RequestEvent request(long recordTimestamp, long maxCost, long maxAheadMs) {
        String requestId = null;
        String apiKey = null;
        long cost = 1;
        long time = recordTimestamp;
        boolean costSeen = false;
        boolean timeSeen = false;
        if (!skipSpaceTo('{')) {
            return null;
        }
        at++;
        if (!skipSpace()) {
            return null;
        }
        if (json[at] == '}') {
            return null;
        }
        while (true) {
            if (!skipSpaceTo('"')) {
                return null;
            }
            int nameStart = at + 1;
            int nameEnd = stringEnd(nameStart);
            if (nameEnd < 0 || !skipSpaceTo(':')) {
                return null;
            }
            at++;
            if (!skipSpace()) {
                return null;
            }
            if (is(REQUEST_ID, nameStart, nameEnd)) {
                if (requestId != null || (requestId = id()) == null) {
                    return null;
                }
            } else if (is(API_KEY, nameStart, nameEnd)) {
                if (apiKey != null || (apiKey = id()) == null) {
                    return null;
                }
            } else if (is(COST, nameStart, nameEnd)) {
                if (costSeen) {
                    return null;
                }
                costSeen = true;
                if (!literal("null")) {
                    cost = number();
                    if (cost < 1 || cost > maxCost) {
                        return null;
                    }
                }
            } else if (is(TIMESTAMP, nameStart, nameEnd)) {
                if (timeSeen) {
                    return null;
                }
                timeSeen = true;
                if (json[at] == '"') {
                    int start = at + 1;
                    int end = stringEnd(start);
                    if (end < 0) {
                        return null;
                    }
                    time = Timestamps.epochMillis(new String(json, start, end - start, StandardCharsets.ISO_8859_1));
                } else if (!literal("null")) {
                    time = number();
                    if (time == Long.MIN_VALUE) {
                        return null;
                    }
                }
            } else if (!skipScalar()) {
                return null;
            }
            if (!skipSpace()) {
                return null;
            }
            byte next = json[at++];
            if (next == '}') {
                break;
            }
            if (next != ',') {
                return null;
            }
        }
        // Jackson reads the object alone and would ignore what follows; here only space may.
        if (skipSpace()) {
            return null;
        }
        boolean acceptable = requestId != null && apiKey != null && time >= 0 && time <= RequestParser.MAX_TIMESTAMP
                && time - recordTimestamp <= maxAheadMs;
        return acceptable ? new RequestEvent(requestId, apiKey, cost, time) : null;
    }

    /** Moves past JSON white space; whether anything follows it. */
    private boolean skipSpace() {
        while (at < json.length) {
            byte b = json[at];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return true;
            }
            at++;
        }
        return false;
    }

    private boolean skipSpaceTo(char expected) {
        return skipSpace() && json[at] == expected;
    }

    /**
     * The index of the quote that ends the string whose first character is at {@code from}, or -1
     * when it has an escape, a control character or a non-ASCII byte, or does not end. Leaves
     * {@link #at} past the closing quote.
     */
    private int stringEnd(int from) {
        for (int i = from; i < json.length; i++) {
            byte b = json[i];
            if (b == '"') {
                at = i + 1;
                return i;
            }
            if (b == '\\' || b < 0x20) {
                // Negative bytes are non-ASCII: Jackson decodes and checks them.
                return -1;
            }
        }
        return -1;
    }

    private boolean is(byte[] name, int from, int to) {
        if (to - from != name.length) {
            return false;
        }
        for (int i = 0; i < name.length; i++) {
            if (json[from + i] != name[i]) {
                return false;
            }
        }
        return true;
    }

    /** A request id or API key: a string of 1 to {@link RequestParser#MAX_ID_LENGTH} characters, else null. */
    private String id() {
        if (json[at] != '"') {
            return null;
        }
        int start = at + 1;
        int end = stringEnd(start);
        if (end <= start || end - start > RequestParser.MAX_ID_LENGTH) {
            return null;
        }
        // ASCII only, so each byte is one character.
        return new String(json, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /** A whole number as JSON writes it (no leading zeros, fraction or exponent), else Long.MIN_VALUE. */
    private long number() {
        boolean negative = json[at] == '-';
        int start = negative ? at + 1 : at;
        int i = start;
        long value = 0;
        while (i < json.length && json[i] >= '0' && json[i] <= '9') {
            value = value * 10 + (json[i] - '0');
            i++;
        }
        int digits = i - start;
        if (digits == 0 || digits > MAX_DIGITS || (digits > 1 && json[start] == '0') || (i < json.length && !endsValue(json[i]))) {
            return Long.MIN_VALUE;
        }
        at = i;
        return negative ? -value : value;
    }

    /** Moves past a string, whole number or literal (the value of a field it does not read); false for anything else. */
    private boolean skipScalar() {
        byte b = json[at];
        if (b == '"') {
            return stringEnd(at + 1) >= 0;
        }
        if (b == '-' || (b >= '0' && b <= '9')) {
            return number() != Long.MIN_VALUE;
        }
        return literal("null") || literal("true") || literal("false");
    }

    /** Moves past {@code word} when it is the value here. */
    private boolean literal(String word) {
        int end = at + word.length();
        if (end > json.length || (end < json.length && !endsValue(json[end]))) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if (json[at + i] != word.charAt(i)) {
                return false;
            }
        }
        at = end;
        return true;
    }

    private static boolean endsValue(byte b) {
        return b == ',' || b == '}' || b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }
}

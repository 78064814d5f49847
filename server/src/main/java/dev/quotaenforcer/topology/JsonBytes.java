package dev.quotaenforcer.topology;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One JSON object written straight into a byte array, escaped as Jackson's generator escapes it. For
 * the records written once per decision: creating, flushing and closing a Jackson generator for each
 * cost more in the deciding thread's profile than writing the fields.
 */
final class JsonBytes {

    /** A field name with its quotes and colon, encoded once. */
    record Name(byte[] bytes) {
        static Name of(String name) {
            JsonBytes json = new JsonBytes();
            json.quoted(name);
            json.put(':');
            return new Name(json.toByteArray());
        }
    }

    /** A string value with its quotes, escaped and encoded once, for text written again and again. */
    record Text(byte[] bytes) {
        static Text of(String text) {
            return new Text(new JsonBytes().string(text).toByteArray());
        }

        /** The start of a string value: its opening quote and {@code text}, escaped, to go on with more. */
        static Text opening(String text) {
            byte[] quoted = of(text).bytes();
            return new Text(Arrays.copyOf(quoted, quoted.length - 1));
        }
    }

    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MIN_LONG = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

    private byte[] bytes = new byte[384];
    private int length;
    /** Whether the next field is the first of its object, so takes no comma. */
    private boolean first = true;

    /** Empties the buffer for the next record, keeping its bytes. */
    JsonBytes reset() {
        length = 0;
        first = true;
        return this;
    }

    /** How many bytes the buffer holds before it grows. */
    int capacity() {
        return bytes.length;
    }

    JsonBytes startObject() {
        put('{');
        first = true;
        return this;
    }

    JsonBytes endObject() {
        put('}');
        first = false;
        return this;
    }

    JsonBytes field(Name name) {
        comma();
        append(name.bytes());
        return this;
    }

    JsonBytes field(String name) {
        comma();
        quoted(name);
        put(':');
        return this;
    }

    JsonBytes string(String value) {
        if (value == null) {
            return nullValue();
        }
        quoted(value);
        return this;
    }

    JsonBytes string(Text value) {
        append(value.bytes());
        return this;
    }

    /** A number written as a string value, as HTTP header values are. */
    JsonBytes quotedNumber(long value) {
        put('"');
        number(value);
        put('"');
        return this;
    }

    /** Bytes that are already JSON, or part of a string value begun with {@link Text#opening}: ASCII with nothing to escape. */
    JsonBytes raw(byte[] json) {
        append(json);
        return this;
    }

    /** Ends a string value begun with {@link Text#opening}. */
    JsonBytes closeString() {
        put('"');
        return this;
    }

    JsonBytes number(long value) {
        if (value == Long.MIN_VALUE) {
            append(MIN_LONG);
            return this;
        }
        ensure(20);
        if (value < 0) {
            bytes[length++] = '-';
            value = -value;
        }
        int start = length;
        do {
            bytes[length++] = (byte) ('0' + value % 10);
            value /= 10;
        } while (value != 0);
        for (int i = start, j = length - 1; i < j; i++, j--) {
            byte digit = bytes[i];
            bytes[i] = bytes[j];
            bytes[j] = digit;
        }
        return this;
    }

    JsonBytes bool(boolean value) {
        append(value ? TRUE : FALSE);
        return this;
    }

    JsonBytes nullValue() {
        append(NULL);
        return this;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    private void comma() {
        if (!first) {
            put(',');
        }
        first = false;
    }

    private void quoted(String text) {
        int chars = text.length();
        // At most 6 bytes per char (an escape), and the quotes.
        ensure(chars * 6 + 2);
        // Locals rather than fields in the loop: the common text, printable ASCII, is a copy byte by byte.
        byte[] out = bytes;
        int at = length;
        out[at++] = '"';
        int i = 0;
        for (; i < chars; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
                break;
            }
            out[at++] = (byte) c;
        }
        length = at;
        for (; i < chars; i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                bytes[length++] = (byte) c;
            } else if (c < 0x80) {
                escape(c);
            } else if (Character.isSurrogate(c)) {
                // Jackson writes each half of a pair (or a lone half) as a six-character escape, not as UTF-8.
                unicodeEscape(c);
            } else {
                utf8(c);
            }
        }
        bytes[length++] = '"';
    }

    private void escape(char c) {
        byte shortForm = switch (c) {
            case '"', '\\' -> (byte) c;
            case '\b' -> 'b';
            case '\t' -> 't';
            case '\n' -> 'n';
            case '\f' -> 'f';
            case '\r' -> 'r';
            default -> 0;
        };
        if (shortForm == 0) {
            unicodeEscape(c);
            return;
        }
        bytes[length++] = '\\';
        bytes[length++] = shortForm;
    }

    private void unicodeEscape(char c) {
        bytes[length++] = '\\';
        bytes[length++] = 'u';
        bytes[length++] = HEX[c >> 12];
        bytes[length++] = HEX[c >> 8 & 0xF];
        bytes[length++] = HEX[c >> 4 & 0xF];
        bytes[length++] = HEX[c & 0xF];
    }

    /** A char of the Basic Multilingual Plane, not a surrogate, from U+0080 on. */
    private void utf8(char c) {
        if (c < 0x800) {
            bytes[length++] = (byte) (0xC0 | c >> 6);
            bytes[length++] = (byte) (0x80 | c & 0x3F);
        } else {
            bytes[length++] = (byte) (0xE0 | c >> 12);
            bytes[length++] = (byte) (0x80 | c >> 6 & 0x3F);
            bytes[length++] = (byte) (0x80 | c & 0x3F);
        }
    }

    private void put(char c) {
        ensure(1);
        bytes[length++] = (byte) c;
    }

    private void append(byte[] more) {
        ensure(more.length);
        System.arraycopy(more, 0, bytes, length, more.length);
        length += more.length;
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}

package dev.quotaenforcer.topology;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Writes instants as {@link Instant#toString()} does, as text or straight into JSON, reusing the text
 * of the last second written:
 * decisions come many to a second, and formatting the date and time of each stood out in the deciding
 * thread's profile.
 */
final class InstantText {

    /** Beyond year 9999 toString() adds a sign, and the text is no longer the fixed-width form below. */
    private static final long FIRST_SECOND_OF_YEAR_10000 = 253_402_300_800L;
    private static final int SECOND_CHARS = "2026-11-30T19:35:12".length();
    private static final int MILLIS_CHARS = ".123Z".length();

    /**
     * The last second formatted, without its zone designator, also as the opening of a JSON string;
     * immutable, so threads may share it.
     */
    private record Second(long epochSecond, String text, byte[] json) {
        static Second of(long epochSecond) {
            String text = Instant.ofEpochSecond(epochSecond).toString();
            String withoutZone = text.substring(0, text.length() - 1);
            return new Second(epochSecond, withoutZone, JsonBytes.Text.opening(withoutZone).bytes());
        }
    }

    /** What ends a JSON string of an instant in its second, by millisecond: {@code .123Z"}, or {@code Z"} at 0. */
    private static final byte[][] JSON_ENDINGS = new byte[1000][];

    static {
        JSON_ENDINGS[0] = "Z\"".getBytes(StandardCharsets.US_ASCII);
        for (int millis = 1; millis < 1000; millis++) {
            JSON_ENDINGS[millis] = String.format(".%03dZ\"", millis).getBytes(StandardCharsets.US_ASCII);
        }
    }

    private static volatile Second last = new Second(Long.MIN_VALUE, "", new byte[0]);

    private InstantText() {
    }

    /** The instant's ISO-8601 text, character for character {@link Instant#toString()}. */
    static String of(Instant instant) {
        long epochSecond = instant.getEpochSecond();
        int nanos = instant.getNano();
        if (!fixedWidth(epochSecond, nanos)) {
            return instant.toString();
        }
        Second second = second(epochSecond);
        int millis = nanos / 1_000_000;
        if (millis == 0) {
            return second.text() + 'Z';
        }
        char[] chars = new char[SECOND_CHARS + MILLIS_CHARS];
        second.text().getChars(0, SECOND_CHARS, chars, 0);
        chars[SECOND_CHARS] = '.';
        chars[SECOND_CHARS + 1] = (char) ('0' + millis / 100);
        chars[SECOND_CHARS + 2] = (char) ('0' + millis / 10 % 10);
        chars[SECOND_CHARS + 3] = (char) ('0' + millis % 10);
        chars[SECOND_CHARS + 4] = 'Z';
        return new String(chars);
    }

    /** Writes the instant as a JSON string value of {@link #of}'s text, without making the text. */
    static void write(Instant instant, JsonBytes json) {
        long epochSecond = instant.getEpochSecond();
        int nanos = instant.getNano();
        if (!fixedWidth(epochSecond, nanos)) {
            json.string(instant.toString());
            return;
        }
        json.raw(second(epochSecond).json()).raw(JSON_ENDINGS[nanos / 1_000_000]);
    }

    /** Whether toString() writes the instant as a second of years 1970 to 9999 and whole milliseconds. */
    private static boolean fixedWidth(long epochSecond, int nanos) {
        return nanos % 1_000_000 == 0 && epochSecond >= 0 && epochSecond < FIRST_SECOND_OF_YEAR_10000;
    }

    private static Second second(long epochSecond) {
        Second second = last;
        if (second.epochSecond() != epochSecond) {
            second = Second.of(epochSecond);
            last = second;
        }
        return second;
    }
}

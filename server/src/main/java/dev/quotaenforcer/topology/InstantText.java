package dev.quotaenforcer.topology;

import java.time.Instant;

/**
 * Writes instants as {@link Instant#toString()} does, reusing the text of the last second written:
 * decisions come many to a second, and formatting the date and time of each stood out in the deciding
 * thread's profile.
 */
final class InstantText {

    /** Beyond year 9999 toString() adds a sign, and the text is no longer the fixed-width form below. */
    private static final long FIRST_SECOND_OF_YEAR_10000 = 253_402_300_800L;
    private static final int SECOND_CHARS = "2026-11-30T19:35:12".length();
    private static final int MILLIS_CHARS = ".123Z".length();

    /** The last second formatted, without its zone designator; immutable, so threads may share it. */
    private record Second(long epochSecond, String text) {
    }

    private static volatile Second last = new Second(Long.MIN_VALUE, "");

    private InstantText() {
    }

    /** The instant's ISO-8601 text, character for character {@link Instant#toString()}. */
    static String of(Instant instant) {
        long epochSecond = instant.getEpochSecond();
        int nanos = instant.getNano();
        if (nanos % 1_000_000 != 0 || epochSecond < 0 || epochSecond >= FIRST_SECOND_OF_YEAR_10000) {
            return instant.toString();
        }
        Second second = last;
        if (second.epochSecond() != epochSecond) {
            String text = Instant.ofEpochSecond(epochSecond).toString();
            second = new Second(epochSecond, text.substring(0, text.length() - 1));
            last = second;
        }
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
}

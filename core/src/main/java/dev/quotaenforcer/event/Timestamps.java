package dev.quotaenforcer.event;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;

/**
 * Reads ISO-8601 date-times with offset into epoch milliseconds. The form gateways send almost
 * always, {@code 2026-11-30T10:15:30.123Z}, is read directly: through {@link OffsetDateTime#parse}
 * it cost more than deciding the request (a locale lookup per call). Every other form goes there.
 * The same direct read gives the gateway client the instants the enforcer writes in that form.
 */
public final class Timestamps {

    private static final long NOT_FAST = Long.MIN_VALUE;
    private static final int[] NANOS_PER_DIGIT = {100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1};

    private Timestamps() {
    }

    /**
     * @throws java.time.format.DateTimeParseException when {@code text} is not an ISO-8601 date-time with offset
     */
    static long epochMillis(String text) {
        long seconds = utcSeconds(text);
        int nanos = seconds == NOT_FAST ? -1 : fractionNanos(text);
        return nanos >= 0 ? seconds * 1000 + nanos / 1_000_000 : OffsetDateTime.parse(text).toInstant().toEpochMilli();
    }

    /** The instant {@code text} is in the form {@code yyyy-MM-ddTHH:mm:ss[.S{1,9}]Z}, read as {@link Instant#parse} does; else null. */
    public static Instant utcInstant(String text) {
        long seconds = utcSeconds(text);
        int nanos = seconds == NOT_FAST ? -1 : fractionNanos(text);
        return nanos < 0 ? null : Instant.ofEpochSecond(seconds, nanos);
    }

    /**
     * {@code yyyy-MM-ddTHH:mm:ss[.S{1,9}]Z} in whole epoch seconds, else {@link #NOT_FAST}; the fraction's
     * digits are left to {@link #fractionNanos}, which reads them once.
     */
    private static long utcSeconds(String text) {
        int length = text.length();
        if (length < 20 || length > 30 || text.charAt(length - 1) != 'Z' || text.charAt(4) != '-' || text.charAt(7) != '-'
                || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':') {
            return NOT_FAST;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 7);
        int day = digits(text, 8, 10);
        int hour = digits(text, 11, 13);
        int minute = digits(text, 14, 16);
        int second = digits(text, 17, 19);
        if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0
                || second > 59) {
            return NOT_FAST;
        }
        if (length > 20) {
            int fractionDigits = length - 21;
            if (text.charAt(19) != '.' || fractionDigits < 1 || fractionDigits > 9) {
                return NOT_FAST;
            }
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return NOT_FAST;
        }
        return ((epochDay * 24 + hour) * 60 + minute) * 60L + second;
    }

    /** The nanoseconds of the fraction of a text {@link #utcSeconds} read; 0 without one, -1 when it is not all digits. */
    private static int fractionNanos(String text) {
        int fractionDigits = text.length() - 21;
        if (fractionDigits < 1) {
            return 0;
        }
        int fraction = digits(text, 20, 20 + fractionDigits);
        return fraction < 0 ? -1 : fraction * NANOS_PER_DIGIT[fractionDigits - 1];
    }

    /** The decimal number in {@code text[from, to)}, or -1 when a character there is not a digit. */
    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}

package dev.quotaenforcer.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Request timestamps read directly in their common UTC form agree with {@link OffsetDateTime#parse} on every input. */
class TimestampsTest {

    private static long reference(String text) {
        return OffsetDateTime.parse(text).toInstant().toEpochMilli();
    }

    @Test
    void agreesWithTheJdkOnRandomUtcTimesWithEveryFractionLength() {
        Random random = new Random(20261130);
        for (int i = 0; i < 20_000; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextInt(Integer.MAX_VALUE) * 4L, random.nextInt(1_000_000_000));
            String base = instant.toString().substring(0, 19);
            String nanos = String.format("%09d", instant.getNano());
            String text = base + (i % 10 == 0 ? "" : "." + nanos.substring(0, i % 10)) + "Z";
            assertEquals(reference(text), Timestamps.epochMillis(text), text);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-11-30T10:15:30Z", "2024-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000000001Z",
            "2026-11-30T10:15:30.123+02:00", "2026-11-30T10:15:30-05:30", "2026-11-30t10:15:30z", "+12026-01-01T00:00:00Z",
            "9999-12-31T23:59:59.999999999Z", "2026-11-30T10:15:30.Z"})
    void readsEveryIsoFormTheJdkReads(String text) {
        assertEquals(reference(text), Timestamps.epochMillis(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-31T00:00:00Z", "2026-11-30T24:00:00Z",
            "2026-11-30T23:60:00Z", "2026-11-30T23:59:60Z", "2026-11-30T10:15:30.1234567891Z",
            "2026-11-30 10:15:30Z", "2026-11-30T10:15:30", "2026-1l-30T10:15:30Z", "2026-11-30T10:15:30.12a4Z", "now"})
    void rejectsWhatTheJdkRejects(String text) {
        assertThrows(DateTimeParseException.class, () -> reference(text));
        assertThrows(DateTimeParseException.class, () -> Timestamps.epochMillis(text));
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class InstantTextTest {

    @Test
    void writesWhatInstantToStringWrites() {
        Random random = new Random(20261130L);
        long second = 1_796_063_712L;
        for (int i = 0; i < 100_000; i++) {
            // Runs of instants in one second, as decisions come, then a jump anywhere: the cached second must not leak.
            Instant instant = random.nextInt(50) == 0
                    ? Instant.ofEpochSecond(second = random.nextLong(-100_000_000_000L, 300_000_000_000L), nanos(random))
                    : Instant.ofEpochSecond(second, nanos(random));
            assertEquals(instant.toString(), InstantText.of(instant));
            assertEquals('"' + instant.toString() + '"', json(instant));
        }
    }

    @Test
    void writesTheEdgesOfTheFixedWidthForm() {
        for (Instant instant : List.of(Instant.EPOCH, Instant.ofEpochMilli(1), Instant.ofEpochMilli(-1),
                Instant.ofEpochMilli(999), Instant.ofEpochMilli(253_402_300_799_999L), Instant.ofEpochMilli(253_402_300_800_000L),
                Instant.MIN, Instant.MAX, Instant.ofEpochSecond(0, 1), Instant.ofEpochSecond(0, 100_000))) {
            assertEquals(instant.toString(), InstantText.of(instant));
            assertEquals('"' + instant.toString() + '"', json(instant));
        }
    }

    private static String json(Instant instant) {
        JsonBytes json = new JsonBytes();
        InstantText.write(instant, json);
        return new String(json.toByteArray(), StandardCharsets.UTF_8);
    }

    private static int nanos(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(10) * 100_000_000;
            default -> random.nextInt(1_000_000_000);
        };
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quotaenforcer.event.KeyUsage;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

/** The binary form of hourly usage the topology keeps in its store and repartition topic. */
class KeyUsageSerdeTest {

    private final KeyUsageSerde serde = new KeyUsageSerde();

    private KeyUsage roundTrip(KeyUsage usage) {
        return serde.deserializer().deserialize("t", serde.serializer().serialize("t", usage));
    }

    @Test
    void readsBackEveryFieldIncludingNonAsciiKeysAndLargeCounts() {
        KeyUsage usage = new KeyUsage("clé-ü-🔑", "pro", 20_000, Instant.parse("2026-11-30T10:00:00Z"), 12, 3,
                Long.MAX_VALUE / 2, 7, 2);

        assertEquals(usage, roundTrip(usage));
    }

    @Test
    void readsBackAUsageWithoutPlan() {
        KeyUsage usage = new KeyUsage("k", null, 0, Instant.parse("1970-01-01T00:00:00Z"), 0, 1, 0, 1, 0);

        assertEquals(usage, roundTrip(usage));
    }

    @Test
    void nullStaysNullForTombstones() {
        assertNull(serde.serializer().serialize("t", null));
        assertNull(serde.deserializer().deserialize("t", null));
    }

    @Test
    void truncatedOrUnknownBytesAreASerializationErrorNamingTheTopic() {
        byte[] bytes = serde.serializer().serialize("t", new KeyUsage("k", "p", 5, Instant.EPOCH, 1, 1, 1, 1, 1));

        SerializationException truncated = assertThrows(SerializationException.class,
                () -> serde.deserializer().deserialize("usage-changelog", Arrays.copyOf(bytes, bytes.length - 3)));
        assertEquals("truncated key usage (" + (bytes.length - 3) + " bytes) on usage-changelog", truncated.getMessage());

        bytes[0] = 9;
        assertThrows(SerializationException.class, () -> serde.deserializer().deserialize("t", bytes));
    }
}

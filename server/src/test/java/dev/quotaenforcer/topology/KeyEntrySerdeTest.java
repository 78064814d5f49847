package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.KeyStateCodec;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.limit.SlidingCounts;
import dev.quotaenforcer.limit.WindowCount;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyEntrySerdeTest {

    private static final long NOW = Instant.parse("2026-11-30T10:15:30.250Z").toEpochMilli();
    private static final KeyState STATE = new KeyState(NOW, NOW + 3_600_000, List.of(
            new KeyState.Slot(1, new SlidingCounts(NOW - 30_250, 18, 7, NOW, false)),
            new KeyState.Slot(2, new WindowCount(Instant.parse("2026-11-30T10:00:00Z").toEpochMilli(), 1_250, NOW, false))));

    private final KeyEntrySerde serde = new KeyEntrySerde();

    private KeyEntry roundTrip(KeyEntry entry) {
        return serde.deserializer().deserialize("t", serde.serializer().serialize("t", entry));
    }

    @Test
    void readsBackTheStateAndEveryFigureIncludingNonAsciiPlansLargeCountsAndNoPlan() {
        KeyUsage pro = new KeyUsage("k", "pro-ü", 20_000, Instant.parse("2026-11-30T10:00:00Z"), 12, 3, Long.MAX_VALUE / 2, 7, 2);
        KeyUsage none = new KeyUsage("k", null, 0, Instant.parse("1969-12-31T23:00:00Z"), 0, 1, 0, 1, 0);
        KeyEntry entry = KeyEntry.of(STATE).withHour(KeyEntry.Hour.of(pro, 41)).withHour(KeyEntry.Hour.of(none, 1));

        KeyEntry read = roundTrip(entry);

        assertEquals(STATE, read.state());
        assertEquals(entry.hours(), read.hours());
        assertEquals(pro, read.hour(pro.hour().toEpochMilli()).usage("k"));
    }

    @Test
    void aTypicalEntryOfACounterAnHourlyQuotaAndItsHourStaysSmall() {
        KeyUsage usage = new KeyUsage("k", "bench", 2_000, Instant.parse("2026-11-30T10:00:00Z"), 20, 3, 20, 3, 0);
        KeyEntry entry = KeyEntry.of(STATE).withHour(KeyEntry.Hour.of(usage, 12));

        int stateBytes = KeyStateCodec.encode(STATE).length;
        int entryBytes = serde.serializer().serialize("t", entry).length;

        assertEquals(stateBytes + 2 + 6 + 11, entryBytes, "format, state length, the plan id and 11 bytes of figures");
    }

    @Test
    void anEntryWithoutStateKeepsItsFiguresAndOneWithoutEitherIsEmpty() {
        KeyUsage usage = new KeyUsage("k", "p", 5, Instant.EPOCH, 1, 0, 1, 0, 0);
        KeyEntry figuresOnly = KeyEntry.of(STATE).withHour(KeyEntry.Hour.of(usage, 3)).withState(null);

        KeyEntry read = roundTrip(figuresOnly);

        assertFalse(read.hasState());
        assertNull(read.state());
        assertEquals(figuresOnly.hours(), read.hours());
        assertEquals(Long.MIN_VALUE, read.idleFrom());
        assertEquals(true, read.withHours(List.of()).isEmpty());
    }

    @Test
    void aStateStoredBeforeEntriesHeldUsageIsReadAsThatStateAlone() {
        byte[] old = KeyStateCodec.encode(STATE);

        KeyEntry read = serde.deserializer().deserialize("t", old);

        assertEquals(STATE, read.state());
        assertEquals(List.of(), read.hours());
        assertArrayEquals(old, read.stateBytes(), "kept as read, decoded only when asked");
        assertEquals(STATE.idleFrom(), read.idleFrom());
    }

    @Test
    void nullStaysNullForTombstones() {
        assertNull(serde.serializer().serialize("t", null));
        assertNull(serde.deserializer().deserialize("t", null));
    }

    @Test
    void bytesThatAreNoEntryReadAsNoEntryRatherThanFailingTheTask() {
        KeyUsage usage = new KeyUsage("k", "p", 5, Instant.EPOCH, 1, 1, 1, 1, 1);
        byte[] bytes = serde.serializer().serialize("t", KeyEntry.of(STATE).withHour(KeyEntry.Hour.of(usage, 2)));

        assertNull(serde.deserializer().deserialize("t", new byte[0]));
        assertNull(serde.deserializer().deserialize("t", Arrays.copyOf(bytes, bytes.length - 1)), "cut inside a figure");
        assertNull(serde.deserializer().deserialize("t", Arrays.copyOf(bytes, 5)), "cut inside the state");
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 10_000; i++) {
            byte[] garbage = new byte[random.nextInt(1, 64)];
            random.nextBytes(garbage);
            garbage[0] = KeyEntry.FORMAT;
            // Anything at all: an entry or no entry, never an exception out of the store.
            serde.deserializer().deserialize("t", garbage);
        }
    }

    @Test
    void anUnreadableStateInsideAReadableEntryFailsOnlyWhenItIsDecoded() {
        KeyUsage usage = new KeyUsage("k", "p", 5, Instant.EPOCH, 1, 0, 1, 0, 0);
        byte[] bytes = serde.serializer().serialize("t", KeyEntry.of(STATE).withHour(KeyEntry.Hour.of(usage, 2)));
        bytes[2] = 9;

        KeyEntry read = serde.deserializer().deserialize("t", bytes);

        assertEquals(1, read.hours().size(), "the figures are still counted");
        assertThrows(IllegalArgumentException.class, read::state);
    }
}

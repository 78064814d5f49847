package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.KeyStateCodec;
import dev.quotaenforcer.engine.VarBytes;
import dev.quotaenforcer.limit.SlidingCounts;
import dev.quotaenforcer.limit.WindowCount;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyEntryTest {

    private static final long NOON = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    private static final long HOUR = 3_600_000L;
    private static final String[] PLANS = {"free", "pro-ü", null, "a-plan-with-a-longer-id"};
    /** Plans a figure may be read as, the stored one or not: "pro-\u00C3\u00BC" has as many chars as "pro-ü" has UTF-8 bytes. */
    private static final String[] LIKELY_PLANS = {"free", "pro-ü", "pro-\u00C3\u00BC", "fre", "freE", null};

    @Test
    void whateverTheChangesTheEntryHoldsWhatAModelOfThemHoldsAndIsLaidOutAsTheSerdeDocumentsIt() {
        for (long seed = 1; seed <= 300; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            KeyEntry entry = KeyEntry.of(null);
            KeyState state = null;
            List<KeyEntry.Hour> hours = new ArrayList<>();
            for (int step = 0; step < 40; step++) {
                int change = random.nextInt(4);
                if (change == 0) {
                    state = random.nextInt(4) == 0 ? null : state(random);
                    entry = entry.withState(state);
                } else if (change == 1) {
                    KeyEntry.Hour figure = hour(random);
                    replace(hours, figure);
                    entry = entry.withHour(figure);
                } else if (change == 2) {
                    // A decision: the state, and the figure of its hour unless it counted none.
                    state = state(random);
                    KeyEntry.Hour figure = random.nextBoolean() ? hour(random) : null;
                    if (figure != null) {
                        replace(hours, figure);
                    }
                    entry = entry.with(state, figure);
                } else {
                    // A sweep keeps some figures, in their order.
                    List<KeyEntry.Hour> kept = new ArrayList<>();
                    for (KeyEntry.Hour hour : hours) {
                        if (random.nextBoolean()) {
                            kept.add(hour);
                        }
                    }
                    hours = kept;
                    entry = entry.withHours(kept);
                }
                String at = "seed " + seed + " step " + step;
                assertEquals(state, entry.state(), at);
                assertEquals(hours, entry.hours(), at);
                for (int h = -1; h < 4; h++) {
                    long hourMs = NOON + h * HOUR;
                    KeyEntry.Hour expected = hours.stream().filter(hour -> hour.hourMs() == hourMs).findFirst().orElse(null);
                    assertEquals(expected, entry.hour(hourMs), at);
                    assertEquals(expected, entry.hour(hourMs, LIKELY_PLANS[random.nextInt(LIKELY_PLANS.length)]), at);
                }
                assertEquals(state == null && hours.isEmpty(), entry.isEmpty(), at);
                assertEquals(state == null ? Long.MIN_VALUE : KeyStateCodec.idleFrom(KeyStateCodec.encode(state)),
                        entry.idleFrom(), at);
                byte[] expected = layout(state, hours);
                assertArrayEquals(expected, KeyEntrySerde.write(entry), at);
                KeyEntry read = KeyEntrySerde.read(expected);
                assertEquals(state, read.state(), at);
                assertEquals(hours, read.hours(), at);
                KeyEntry unpacked = KeyEntry.PACKING.unpack(KeyEntry.PACKING.pack(entry));
                assertEquals(state, unpacked.state(), at);
                assertEquals(hours, unpacked.hours(), at);
            }
        }
    }

    @Test
    void aStoreHoldsTheEntrysOwnBytesAndAReadEntryKeepsThem() {
        KeyEntry entry = KeyEntry.of(state(new SplittableRandom(7))).withHour(hour(new SplittableRandom(8)));
        byte[] bytes = KeyEntrySerde.write(entry);

        assertSame(bytes, KeyEntrySerde.write(entry), "no copy per write-back");
        assertSame(bytes, KeyEntrySerde.write(KeyEntrySerde.read(bytes)));
    }

    @Test
    void aSlotHoldsAnEntrysOwnBytesAloneAndTheEntryMadeAgainFromThemSplitsStateAndFiguresAsBefore() {
        KeyEntry.Hour figure = hour(new SplittableRandom(5));
        // State lengths whose length takes one, then two, then three bytes.
        for (int stateLength : new int[] {0, 1, 127, 128, 300, 16_383, 16_384}) {
            byte[] state = new byte[stateLength];
            new SplittableRandom(stateLength).nextBytes(state);
            KeyEntry entry = KeyEntry.ofStateBytes(state).withHour(figure);

            Object packed = KeyEntry.PACKING.pack(entry);
            KeyEntry unpacked = KeyEntry.PACKING.unpack(packed);

            assertSame(KeyEntrySerde.write(entry), packed, "the entry's bytes, not a copy");
            assertArrayEquals(stateLength == 0 ? null : state, unpacked.stateBytes(), "state of " + stateLength + " bytes");
            assertEquals(List.of(figure), unpacked.hours(), "state of " + stateLength + " bytes");
            assertSame(packed, KeyEntrySerde.write(unpacked));
        }
    }

    @Test
    void aFigureReadWithItsPlanGivenCarriesThatTextItselfAndAnyOtherIsDecoded() {
        KeyEntry entry = KeyEntry.of(null).withHour(new KeyEntry.Hour("pro-ü", 10, NOON, 1, 0, 1, 0, 0, 1))
                .withHour(new KeyEntry.Hour("free", 10, NOON + HOUR, 1, 0, 1, 0, 0, 1));
        String free = new String("free".toCharArray());

        assertSame(free, entry.hour(NOON + HOUR, free).plan());
        assertEquals("pro-ü", entry.hour(NOON, "pro-\u00C3\u00BC").plan());
        assertEquals("free", entry.hour(NOON + HOUR, "pro-ü").plan());
    }

    @Test
    void anEntryWithoutFiguresHasNoFigureOfAnyHour() {
        KeyEntry entry = KeyEntry.of(state(new SplittableRandom(3)));

        assertNull(entry.hour(NOON));
        assertEquals(List.of(), entry.hours());
    }

    /** The bytes of the layout {@link KeyEntrySerde} documents, written here from the model. */
    private static byte[] layout(KeyState state, List<KeyEntry.Hour> hours) {
        VarBytes.Writer out = new VarBytes.Writer();
        out.write(16);
        byte[] stateBytes = state == null ? new byte[0] : KeyStateCodec.encode(state);
        out.unsigned(stateBytes.length);
        out.bytes(stateBytes);
        for (KeyEntry.Hour hour : hours) {
            byte[] plan = hour.plan() == null ? null : hour.plan().getBytes(StandardCharsets.UTF_8);
            out.unsigned(plan == null ? 0 : plan.length + 1);
            if (plan != null) {
                out.bytes(plan);
            }
            out.signed(Math.floorDiv(hour.hourMs(), HOUR));
            for (long number : new long[] {hour.quota(), hour.allowed(), hour.denied(), hour.allowedCost(),
                    hour.deniedCost(), hour.quotaDenied(), hour.write()}) {
                out.unsigned(number);
            }
        }
        return out.toByteArray();
    }

    /** The figure takes the place of its hour's, at the end. */
    private static void replace(List<KeyEntry.Hour> hours, KeyEntry.Hour figure) {
        hours.removeIf(hour -> hour.hourMs() == figure.hourMs());
        hours.add(figure);
    }

    private static KeyEntry.Hour hour(SplittableRandom random) {
        long hourMs = NOON + (random.nextInt(5) - 1) * HOUR;
        return new KeyEntry.Hour(PLANS[random.nextInt(PLANS.length)], random.nextLong(0, 1L << 40), hourMs,
                random.nextLong(0, 1L << 20), random.nextLong(0, 1000), random.nextLong(0, Long.MAX_VALUE),
                random.nextLong(0, 1000), random.nextLong(0, 10), random.nextLong(1, 1L << 33));
    }

    private static KeyState state(SplittableRandom random) {
        long lastSeen = NOON + random.nextLong(0, HOUR);
        long second = Math.floorDiv(lastSeen, 1000L) * 1000;
        List<KeyState.Slot> slots = new ArrayList<>();
        slots.add(new KeyState.Slot(1, new SlidingCounts(second - 1000L * random.nextInt(60), random.nextInt(1000),
                random.nextInt(1000), lastSeen - random.nextInt(5000), random.nextBoolean())));
        if (random.nextBoolean()) {
            slots.add(new KeyState.Slot(2, new WindowCount(Math.floorDiv(lastSeen, HOUR) * HOUR, random.nextInt(100_000),
                    lastSeen, false)));
        }
        return new KeyState(lastSeen, lastSeen + 1000L * random.nextInt(3600), slots);
    }
}

package dev.quotaenforcer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.BucketLevel;
import dev.quotaenforcer.limit.PolicyState;
import dev.quotaenforcer.limit.RequestLog;
import dev.quotaenforcer.limit.SlidingCounts;
import dev.quotaenforcer.limit.WindowCount;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The binary key-state form: exact round trips of every policy state, idle-time rounding, rejection of bad bytes, and size. */
class KeyStateCodecTest {

    /** 2026-11-30T12:34:56.789Z: a last-seen time that is not on a second boundary. */
    private static final long NOW = Instant.parse("2026-11-30T12:34:56.789Z").toEpochMilli();
    private static final long NOW_SECOND = Math.floorDiv(NOW, 1000L) * 1000;
    private static final int TAG_A = 0x12345678;
    private static final int TAG_B = 0xCAFEBABE;

    @Test
    void roundTripsWindowCount() {
        assertRoundTrip(state(NOW, NOW + 3_000, new WindowCount(NOW_SECOND - 56_000, 42, NOW_SECOND - 56_000, false)));
    }

    @Test
    void roundTripsSlidingCounts() {
        assertRoundTrip(state(NOW, NOW + 64_000, new SlidingCounts(NOW_SECOND - 56_000, 99, 17, NOW_SECOND - 56_000, false)));
    }

    @Test
    void roundTripsRequestLog() {
        RequestLog log = new RequestLog(new long[] {NOW - 59_999, NOW - 1_000, NOW - 1_000, NOW},
                new long[] {1, 5, 1, 1_000}, NOW, false);
        assertRoundTrip(state(NOW, NOW + 60_000, log));
    }

    @Test
    void roundTripsBucketLevel() {
        assertRoundTrip(state(NOW, NOW + 12_000, new BucketLevel(123_456_789, NOW - 333, false)));
    }

    @Test
    void roundTripsDenyingFlagOfEveryStateType() {
        assertRoundTrip(new KeyState(NOW, NOW + 3_600_000, List.of(
                new KeyState.Slot(1, new WindowCount(NOW_SECOND, 1_000, NOW_SECOND, true)),
                new KeyState.Slot(2, new SlidingCounts(NOW_SECOND - 1_000, 0, 100, NOW_SECOND - 1_000, true)),
                new KeyState.Slot(3, new RequestLog(new long[] {NOW}, new long[] {1}, NOW, true)),
                new KeyState.Slot(4, new BucketLevel(0, NOW, true)))));
    }

    @Test
    void keepsDenyingFlagSeparateFromStateType() {
        KeyState decoded = KeyStateCodec.decode(KeyStateCodec.encode(new KeyState(NOW, NOW, List.of(
                new KeyState.Slot(1, new WindowCount(NOW_SECOND, 1, NOW_SECOND, true)),
                new KeyState.Slot(2, new WindowCount(NOW_SECOND, 1, NOW_SECOND, false))))));

        assertTrue(decoded.stateOf(1).denying());
        assertFalse(decoded.stateOf(2).denying());
        assertEquals(WindowCount.class, decoded.stateOf(1).getClass());
    }

    @Test
    void roundTripsEmptyRequestLog() {
        assertRoundTrip(state(NOW, NOW, new RequestLog(new long[0], new long[0], NOW, false)));
        assertRoundTrip(state(NOW, NOW, new RequestLog(new long[0], new long[0], NOW, true)));
    }

    @Test
    void roundTripsRequestLogWithManyEntries() {
        int size = 1_000;
        long[] times = new long[size];
        long[] costs = new long[size];
        for (int i = 0; i < size; i++) {
            times[i] = NOW - 3_600_000 + i * 3_600L;
            costs[i] = 1 + i % 7;
        }
        assertRoundTrip(state(NOW, NOW + 3_600_000, new RequestLog(times, costs, NOW, false)));
    }

    @Test
    void roundTripsKeyWithNoSlots() {
        assertRoundTrip(new KeyState(NOW, NOW, List.of()));
    }

    @Test
    void roundTripsTimesBefore1970() {
        long lastSeen = -1_500;
        assertRoundTrip(new KeyState(lastSeen, lastSeen + 60_000, List.of(
                new KeyState.Slot(TAG_A, new WindowCount(-2_000, 3, -2_000, false)),
                new KeyState.Slot(TAG_B, new SlidingCounts(-62_000, 7, 8, -62_000, true)),
                new KeyState.Slot(3, new RequestLog(new long[] {-90_000, -1_501, -1_500}, new long[] {1, 2, 3}, -1_500, false)),
                new KeyState.Slot(4, new BucketLevel(5, -1_000_000, false)))));
    }

    @Test
    void roundTripsTimesFarBefore1970() {
        long lastSeen = Instant.parse("1900-01-01T00:00:00.001Z").toEpochMilli();
        long second = Math.floorDiv(lastSeen, 1000L) * 1000;
        assertRoundTrip(new KeyState(lastSeen, lastSeen + 86_400_000L, List.of(
                new KeyState.Slot(TAG_A, new WindowCount(second - 86_399_000L, 1, second - 86_399_000L, false)),
                new KeyState.Slot(TAG_B, new BucketLevel(1, lastSeen - 1, false)))));
    }

    @Test
    void roundTripsLargeCounts() {
        assertRoundTrip(new KeyState(NOW, NOW + 31L * 86_400_000, List.of(
                new KeyState.Slot(TAG_A, new WindowCount(NOW_SECOND - 31L * 86_400_000, Long.MAX_VALUE, NOW_SECOND - 31L * 86_400_000, false)),
                new KeyState.Slot(TAG_B, new SlidingCounts(NOW_SECOND, Long.MAX_VALUE, Long.MAX_VALUE - 1, NOW_SECOND, true)),
                new KeyState.Slot(3, new RequestLog(new long[] {0, NOW}, new long[] {Long.MAX_VALUE, 1_000_000_000}, NOW, false)),
                new KeyState.Slot(4, new BucketLevel(Long.MAX_VALUE, Long.MIN_VALUE / 4, false)))));
    }

    @Test
    void roundTripsNegativeAndExtremeTags() {
        assertRoundTrip(new KeyState(NOW, NOW, List.of(
                new KeyState.Slot(Integer.MIN_VALUE, new WindowCount(NOW_SECOND, 1, NOW_SECOND, false)),
                new KeyState.Slot(-1, new WindowCount(NOW_SECOND, 2, NOW_SECOND, false)),
                new KeyState.Slot(0, new WindowCount(NOW_SECOND, 3, NOW_SECOND, false)),
                new KeyState.Slot(Integer.MAX_VALUE, new WindowCount(NOW_SECOND, 4, NOW_SECOND, false)))));
    }

    @Test
    void roundsIdleFromUpToWholeSecondsPastLastSeen() {
        long lastSeen = 1_000_500;
        KeyState state = state(lastSeen, lastSeen + 60_001, new WindowCount(1_000_000, 1, 1_000_000, false));

        byte[] bytes = KeyStateCodec.encode(state);

        assertEquals(lastSeen + 61_000, KeyStateCodec.decode(bytes).idleFrom());
        assertEquals(lastSeen + 61_000, KeyStateCodec.idleFrom(bytes));
    }

    @Test
    void keepsIdleFromThatIsWholeSecondsPastLastSeen() {
        byte[] bytes = KeyStateCodec.encode(state(NOW, NOW + 60_000, new WindowCount(NOW_SECOND, 1, NOW_SECOND, false)));

        assertEquals(NOW + 60_000, KeyStateCodec.idleFrom(bytes));
    }

    @Test
    void clampsIdleFromBeforeLastSeenToLastSeen() {
        byte[] bytes = KeyStateCodec.encode(state(NOW, NOW - 5_000, new WindowCount(NOW_SECOND, 1, NOW_SECOND, false)));

        assertEquals(NOW, KeyStateCodec.decode(bytes).idleFrom());
        assertEquals(NOW, KeyStateCodec.idleFrom(bytes));
    }

    @Test
    void roundsIdleFromUpForTimesBefore1970() {
        byte[] bytes = KeyStateCodec.encode(state(-1_500, -1_499, new WindowCount(-2_000, 1, -2_000, false)));

        assertEquals(-500, KeyStateCodec.idleFrom(bytes));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 0x7F, 0xFF})
    void rejectsUnknownVersion(int version) {
        byte[] bytes = KeyStateCodec.encode(state(NOW, NOW, new WindowCount(NOW_SECOND, 1, NOW_SECOND, false)));
        bytes[0] = (byte) version;

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.decode(bytes));
        assertTrue(e.getMessage().contains("version"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.idleFrom(bytes));
    }

    @Test
    void rejectsEmptyValue() {
        assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.decode(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.idleFrom(new byte[0]));
    }

    @Test
    void rejectsValueTruncatedInsideHeaderOrSlot() {
        KeyState state = new KeyState(NOW, NOW + 3_600_000, List.of(
                new KeyState.Slot(TAG_A, new SlidingCounts(NOW_SECOND - 56_000, 300, 200, NOW_SECOND - 56_000, false)),
                new KeyState.Slot(TAG_B, new RequestLog(new long[] {NOW - 70_000, NOW}, new long[] {1, 500}, NOW, false)),
                new KeyState.Slot(3, new BucketLevel(1_000_000, NOW - 1, false))));
        byte[] bytes = KeyStateCodec.encode(state);
        Set<Integer> slotBoundaries = slotBoundaries(state);

        int rejected = 0;
        for (int length = 0; length < bytes.length; length++) {
            if (slotBoundaries.contains(length)) {
                continue; // a cut between slots is a shorter valid state: the layout has no slot count
            }
            byte[] truncated = Arrays.copyOf(bytes, length);
            assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.decode(truncated), "cut at " + length);
            rejected++;
        }
        assertTrue(rejected > bytes.length / 2, "only " + rejected + " of " + bytes.length + " cuts tried");
    }

    @Test
    void rejectsValueCutInsideVarint() {
        byte[] bytes = KeyStateCodec.encode(state(NOW, NOW, new WindowCount(NOW_SECOND, 1_000_000, NOW_SECOND, false)));

        byte[] cut = Arrays.copyOf(bytes, bytes.length - 1);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.decode(cut));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 10, 11, 0x42, 0xFE, 0xFF})
    void rejectsUnknownStateType(int type) {
        byte[] bytes = KeyStateCodec.encode(state(NOW, NOW, new WindowCount(NOW_SECOND, 1, NOW_SECOND, false)));
        int typeOffset = headerLength(NOW, NOW) + 4;
        assertEquals(2, bytes[typeOffset], "the fixed-window type byte");
        bytes[typeOffset] = (byte) type;

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.decode(bytes));
        assertTrue(e.getMessage().contains("type"), e.getMessage());
    }

    @Test
    void rejectsVarintLongerThan64Bits() {
        byte[] header = KeyStateCodec.encode(new KeyState(NOW, NOW, List.of()));
        byte[] bytes = Arrays.copyOf(header, header.length + 4 + 1 + 11);
        int at = header.length + 4;
        bytes[at++] = 2;
        Arrays.fill(bytes, at, bytes.length, (byte) 0x80);

        assertThrows(IllegalArgumentException.class, () -> KeyStateCodec.decode(bytes));
    }

    @Test
    void roundTripsGrants() {
        assertRoundTrip(new KeyState(NOW, NOW + 3_600_000, List.of(
                new KeyState.Slot(TAG_A, new WindowCount(NOW_SECOND, 1_500, NOW, true))), List.of(
                new KeyState.Grant(TAG_A, 500, NOW_SECOND + 1_000),
                new KeyState.Grant(TAG_B, 1_000_000_000, NOW + 3_600_000)), KeyState.NOT_BLOCKED));
    }

    @Test
    void roundTripsBlockUntilATime() {
        assertRoundTrip(new KeyState(NOW, NOW + 86_400_000, List.of(
                new KeyState.Slot(TAG_A, new WindowCount(NOW_SECOND, 3, NOW, false))), List.of(), NOW + 86_400_000));
        assertRoundTrip(new KeyState(NOW, NOW + 1, List.of(), List.of(), NOW + 1));
    }

    @Test
    void roundTripsBlockWithoutEndAndSuchAKeyIsNeverIdle() {
        KeyState blocked = new KeyState(NOW, Long.MAX_VALUE, List.of(
                new KeyState.Slot(TAG_A, new SlidingCounts(NOW_SECOND, 1, 2, NOW, false))), List.of(
                new KeyState.Grant(TAG_A, 7, NOW + 60_000)), KeyState.BLOCKED_WITHOUT_END);

        byte[] bytes = KeyStateCodec.encode(blocked);

        assertEquals(blocked, KeyStateCodec.decode(bytes));
        assertEquals(Long.MAX_VALUE, KeyStateCodec.idleFrom(bytes));
    }

    @Test
    void keysWithoutGrantOrBlockKeepTheFirstVersionAndItsSize() {
        KeyState plain = state(NOW, NOW + 60_000, new WindowCount(NOW_SECOND, 42, NOW, false));

        byte[] bytes = KeyStateCodec.encode(plain);

        assertEquals(1, bytes[0]);
        assertEquals(KeyStateCodec.encode(new KeyState(NOW, NOW + 60_000, plain.slots(), List.of(), KeyState.NOT_BLOCKED)).length,
                bytes.length);
    }

    @Test
    void decodesStatesStoredBeforeCommandsExisted() {
        // Written by the codec as of ee638d8 (version 1 only): last-seen NOW, idle 60 s later, a fixed-window
        // slot of TAG_A that used 42 in the window starting NOW_SECOND - 56 s.
        byte[] stored = hex("01aa829cc7c5683c123456780200382a");

        assertEquals(state(NOW, NOW + 60_000, new WindowCount(NOW_SECOND - 56_000, 42, NOW, false)),
                KeyStateCodec.decode(stored));
        assertEquals(NOW + 60_000, KeyStateCodec.idleFrom(stored));
    }

    @Test
    void aDaysBlockCostsAtMost8BytesAndAnHoursGrantAtMost13() {
        KeyState plain = state(NOW, NOW + 60_000, new WindowCount(NOW_SECOND, 42, NOW, false));
        int size = KeyStateCodec.encode(plain).length;

        int blocked = KeyStateCodec.encode(new KeyState(NOW, NOW + 86_400_000, plain.slots(), List.of(), NOW + 86_400_000)).length;
        int granted = KeyStateCodec.encode(new KeyState(NOW, NOW + 3_600_000, plain.slots(), List.of(
                new KeyState.Grant(TAG_A, 500, NOW + 3_600_000)), KeyState.NOT_BLOCKED)).length;

        assertTrue(blocked - size <= 8, "a day's block adds " + (blocked - size) + " bytes");
        assertTrue(granted - size <= 13, "an hour's grant adds " + (granted - size) + " bytes");
    }

    @Test
    void encodesPerMinuteCounterPlusHourlyQuotaInAtMost32Bytes() {
        long hour = Math.floorDiv(NOW, 3_600_000L) * 3_600_000;
        int largest = 0;
        // Every second of the hour, so the quota window and idle time take every width they can.
        for (long lastSeen = hour + 999; lastSeen < hour + 3_600_000; lastSeen += 1_000) {
            long minute = Math.floorDiv(lastSeen, 60_000L) * 60_000;
            KeyState state = new KeyState(lastSeen, hour + 3_600_000, List.of(
                    new KeyState.Slot(TAG_A, new SlidingCounts(minute, 127, 127, lastSeen, false)),
                    new KeyState.Slot(TAG_B, new WindowCount(hour, 1_000, lastSeen, false))));
            int size = KeyStateCodec.encode(state).length;
            assertTrue(size <= 32, "encoded in " + size + " bytes at " + Instant.ofEpochMilli(lastSeen));
            largest = Math.max(largest, size);
        }
        KeyState typical = new KeyState(NOW, hour + 3_600_000, List.of(
                new KeyState.Slot(TAG_A, new SlidingCounts(Math.floorDiv(NOW, 60_000L) * 60_000, 87, 12, NOW, false)),
                new KeyState.Slot(TAG_B, new WindowCount(hour, 523, NOW, false))));
        int typicalSize = KeyStateCodec.encode(typical).length;
        System.out.println("KeyStateCodec size, per-minute sliding-window counter + hourly fixed-window quota: "
                + typicalSize + " bytes typical, " + largest + " bytes largest over the hour");
        assertTrue(typicalSize <= 32, typicalSize + " bytes");
    }

    @Test
    void encodesStatesTheEngineKeepsForFreePlanInAtMost32Bytes() throws Exception {
        Plan free = new PlanParser().parsePlan("free", """
                {"id": "free",
                 "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 100, "window": "PT1M"}],
                 "quota": {"name": "hourly", "limit": 1000, "window": "PT1H"}}
                """.getBytes(StandardCharsets.UTF_8));
        long hour = Math.floorDiv(NOW, 3_600_000L) * 3_600_000;
        KeyState state = null;
        int largest = 0;
        int allowed = 0;
        // 1,200 requests 3 s apart: the quota fills to 1,000 and then denies, so every kind of state the engine
        // writes for this plan (allowing, denying, denied by the other policy) is measured.
        for (int i = 0; i < 1_200; i++) {
            PlanEvaluation evaluation = QuotaEngine.evaluate(free, state, hour + 500 + i * 3_000L, 1);
            state = evaluation.state();
            allowed += evaluation.allowed() ? 1 : 0;
            byte[] bytes = KeyStateCodec.encode(state);
            largest = Math.max(largest, bytes.length);
            assertEquals(state.lastSeen(), KeyStateCodec.decode(bytes).lastSeen());
            assertEquals(state.slots(), KeyStateCodec.decode(bytes).slots());
        }
        System.out.println("KeyStateCodec size of engine states for the free plan over an hour: at most " + largest
                + " bytes");
        assertEquals(1_000, allowed);
        assertTrue(largest <= 32, largest + " bytes");
    }

    @Test
    void roundTripsSeededRandomStates() {
        Random random = new Random(20261130L);
        for (int i = 0; i < 20_000; i++) {
            KeyState state = randomState(random);
            assertRoundTrip(state);
        }
    }

    private static KeyState randomState(Random random) {
        long lastSeen = switch (random.nextInt(4)) {
            case 0 -> NOW + random.nextInt(1_000_000);
            case 1 -> random.nextInt(5_000) - 2_500L;
            case 2 -> -random.nextLong(4_000_000_000_000L);
            default -> random.nextLong(8_000_000_000_000L);
        };
        long lastSecond = Math.floorDiv(lastSeen, 1000L) * 1000;
        long idleFrom = lastSeen + random.nextLong(32L * 86_400_000) - 1_000;
        int slotCount = random.nextInt(5);
        List<KeyState.Slot> slots = new ArrayList<>();
        for (int s = 0; s < slotCount; s++) {
            boolean denying = random.nextBoolean();
            PolicyState policyState = switch (random.nextInt(4)) {
                case 0 -> new WindowCount(lastSecond - 1000L * random.nextInt(2_678_400), count(random), lastSecond - 1000L * random.nextInt(2_678_400), denying);
                case 1 -> new SlidingCounts(lastSecond - 1000L * random.nextInt(2_678_400), count(random), count(random), lastSecond - 1000L * random.nextInt(2_678_400),
                        denying);
                case 2 -> randomLog(random, lastSeen, denying);
                default -> new BucketLevel(count(random), lastSeen - random.nextLong(100_000_000L), denying);
            };
            slots.add(new KeyState.Slot(random.nextInt(), policyState));
        }
        return new KeyState(lastSeen, idleFrom, slots);
    }

    private static RequestLog randomLog(Random random, long lastSeen, boolean denying) {
        int size = random.nextInt(4) == 0 ? random.nextInt(1_001) : random.nextInt(5);
        long[] times = new long[size];
        long[] costs = new long[size];
        long time = lastSeen;
        for (int i = size - 1; i >= 0; i--) {
            time -= random.nextInt(3) == 0 ? 0 : random.nextInt(100_000);
            times[i] = time;
            costs[i] = 1 + random.nextInt(1_000_000);
        }
        return new RequestLog(times, costs, lastSeen - random.nextInt(1_000), denying);
    }

    private static long count(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> random.nextInt(128);
            case 1 -> random.nextInt(1_000_001);
            case 2 -> random.nextLong(1_000_000_000_000_000_000L);
            default -> Long.MAX_VALUE - random.nextInt(3);
        };
    }

    private static KeyState state(long lastSeen, long idleFrom, PolicyState policyState) {
        return new KeyState(lastSeen, idleFrom, List.of(new KeyState.Slot(TAG_A, policyState)));
    }

    /** Encodes and decodes; all must survive except idleFrom, which comes back rounded as documented. */
    private static void assertRoundTrip(KeyState state) {
        byte[] bytes = KeyStateCodec.encode(state);
        KeyState decoded = KeyStateCodec.decode(bytes);

        long expectedIdle = state.lastSeen() + ceilSeconds(Math.max(state.idleFrom(), state.lastSeen()) - state.lastSeen());
        assertEquals(new KeyState(state.lastSeen(), expectedIdle, state.slots(), state.grants(), state.blockedUntil()), decoded);
        assertEquals(decoded.idleFrom(), KeyStateCodec.idleFrom(bytes));
    }

    private static byte[] hex(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    private static long ceilSeconds(long ms) {
        return (ms + 999) / 1000 * 1000;
    }

    /** Offsets at which a slot begins or the value ends, computed from the documented layout. */
    private static Set<Integer> slotBoundaries(KeyState state) {
        Set<Integer> boundaries = new HashSet<>();
        int offset = KeyStateCodec.encode(new KeyState(state.lastSeen(), state.idleFrom(), List.of())).length;
        boundaries.add(offset);
        for (KeyState.Slot slot : state.slots()) {
            offset += KeyStateCodec.encode(new KeyState(state.lastSeen(), state.idleFrom(), List.of(slot))).length
                    - headerLength(state.lastSeen(), state.idleFrom());
            boundaries.add(offset);
        }
        return boundaries;
    }

    private static int headerLength(long lastSeen, long idleFrom) {
        return KeyStateCodec.encode(new KeyState(lastSeen, idleFrom, List.of())).length;
    }
}

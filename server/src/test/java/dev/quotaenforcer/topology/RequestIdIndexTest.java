package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The compact index of remembered request ids, against a map and a queue doing the same by the book. */
class RequestIdIndexTest {

    final RequestIdIndex index = new RequestIdIndex();

    @Test
    void underG1AChunkIsMoreThanHalfAHeapRegionSoItIsNeverCopiedByAYoungCollection() {
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long region = Long.parseLong(hotspot.getVMOption("G1HeapRegionSize").getValue());
        if (Boolean.parseBoolean(hotspot.getVMOption("UseG1GC").getValue())) {
            assertTrue(RequestIdIndex.CHUNK_BYTES * 2L > region && RequestIdIndex.CHUNK_BYTES <= region,
                    RequestIdIndex.CHUNK_BYTES + " bytes in regions of " + region);
        } else {
            assertEquals(256 * 1024, RequestIdIndex.CHUNK_BYTES);
        }
    }

    @Test
    void anIdIsFoundWithItsTimeAndDecisionAndAnotherIsNot() {
        index.put(key("5:key-1r-1"), 100, new byte[] {1, 2, 3});

        RequestIdIndex.Remembered found = index.get(key("5:key-1r-1"));
        assertNotNull(found);
        assertEquals(100, found.time());
        assertArrayEquals(new byte[] {1, 2, 3}, found.decision());
        assertNull(index.get(key("5:key-1r-2")));
        assertNull(index.get(key("5:key-1r-")), "a prefix of a remembered id is another id");
    }

    @Test
    void rememberingAnIdAgainReplacesItAndForgettingTheOlderEntryKeepsTheNewer() {
        index.put(key("a"), 1, new byte[] {1});
        index.put(key("a"), 2, new byte[] {2});
        assertEquals(1, index.size());

        index.forgetOldest();

        assertEquals(2, index.get(key("a")).time());
        assertEquals(2, index.oldestTime());
        index.forgetOldest();
        assertNull(index.get(key("a")));
        assertTrue(index.isEmpty());
    }

    @Test
    void anEntrysBytesStayAsWrittenAfterItIsForgottenAndMoreAreWritten() {
        index.put(key("a"), 1, new byte[] {1, 2});
        byte[] bytes = index.lastEntryBytes();
        int at = index.lastEntryAt();
        byte[] written = new byte[RequestIdIndex.entryBytes(key("a"), new byte[] {1, 2})];
        RequestIdIndex.writeEntry(written, 0, key("a"), 1, new byte[] {1, 2});
        assertArrayEquals(written, Arrays.copyOfRange(bytes, at, at + written.length));

        index.forgetOldest();
        assertTrue(index.isEmpty());
        index.put(key("b"), 2, new byte[] {3, 4});
        index.put(key("c"), 3, new byte[] {5, 6});

        assertArrayEquals(written, Arrays.copyOfRange(bytes, at, at + written.length), "a batch may still hold them");
        assertEquals(2, index.oldestTime());
        assertArrayEquals(new byte[] {5, 6}, index.get(key("c")).decision());
    }

    @Test
    void idsOfAnyCharactersAndAnEntryLargerThanAChunkAreKept() {
        String unicode = "ключ-🔑-" + "x".repeat(200);
        byte[] large = new byte[RequestIdIndex.CHUNK_BYTES + 10];
        large[large.length - 1] = 7;
        index.put(key(unicode), 1, new byte[0]);
        index.put(key("large"), 2, large);
        index.put(key("after"), 3, new byte[] {9});

        assertEquals(1, index.get(key(unicode)).time());
        assertArrayEquals(large, index.get(key("large")).decision());
        index.forgetOldest();
        index.forgetOldest();
        assertArrayEquals(new byte[] {9}, index.get(key("after")).decision());
    }

    /**
     * As the enforcer makes it; with slots keeping 4 bits of each id's hash, so tables past 16 slots find an
     * entry's home by hashing its id again; and with chunk numbers starting just short of what the slots' bits
     * hold, so they wrap while chunks leave.
     */
    static Stream<Arguments> indexes() {
        return Stream.of(
                Arguments.of("as made", new RequestIdIndex()),
                Arguments.of("4 tag bits, wrapping chunk numbers",
                        new RequestIdIndex(4, RequestIdIndex.MAX_CHUNKS, RequestIdIndex.MAX_CHUNKS - 3)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("indexes")
    void behavesAsAMapAndAQueueThroughGrowthShrinkingAndChunksLeaving(String name, RequestIdIndex index) {
        SplittableRandom random = new SplittableRandom(42);
        Map<String, Long> oracle = new HashMap<>();
        ArrayDeque<Map.Entry<String, Long>> order = new ArrayDeque<>();
        long time = 0;
        for (int step = 0; step < 400_000; step++) {
            // Phases of mostly adding and mostly forgetting, so the table grows and shrinks again.
            boolean adding = (step / 50_000) % 2 == 0 ? random.nextInt(10) < 8 : random.nextInt(10) < 2;
            if (adding || order.isEmpty()) {
                String id = "id-" + random.nextInt(60_000);
                time++;
                byte[] bytes = key(id);
                if (random.nextBoolean()) {
                    // Looked up first, as a request's id is, so the put reuses the lookup's hash.
                    RequestIdIndex.Remembered found = index.get(bytes);
                    assertEquals(oracle.get(id), found == null ? null : found.time(), id);
                }
                index.put(bytes, time, Long.toString(time).getBytes());
                oracle.put(id, time);
                order.add(Map.entry(id, time));
            } else {
                Map.Entry<String, Long> oldest = order.poll();
                assertEquals(oldest.getValue(), index.oldestTime());
                index.forgetOldest();
                if (oracle.get(oldest.getKey()).equals(oldest.getValue())) {
                    oracle.remove(oldest.getKey());
                }
            }
            if (step % 997 == 0) {
                assertEquals(oracle.size(), index.size());
                for (int probe = 0; probe < 50; probe++) {
                    String id = "id-" + random.nextInt(60_000);
                    Long expected = oracle.get(id);
                    RequestIdIndex.Remembered found = index.get(key(id));
                    assertEquals(expected, found == null ? null : found.time(), id);
                    if (found != null) {
                        assertEquals(Long.toString(expected), new String(found.decision()));
                    }
                }
            }
        }
        while (!order.isEmpty()) {
            order.poll();
            index.forgetOldest();
        }
        assertTrue(index.isEmpty());
        assertEquals(0, index.size());
    }

    @Test
    void withItsMostChunksAliveTheOldestIdsAreForgottenBeforeAChunkIsAdded() {
        RequestIdIndex limited = new RequestIdIndex(RequestIdIndex.TAG_HASH_BITS, 3, 0);
        byte[] chunkSized = new byte[RequestIdIndex.CHUNK_BYTES];
        // An entry larger than a chunk takes one of its own, and the next entry starts another.
        limited.put(key("a"), 1, chunkSized);
        limited.put(key("b"), 2, new byte[] {2});
        limited.put(key("c"), 3, new byte[] {3});
        limited.put(key("d"), 4, chunkSized);
        assertEquals(4, limited.size());

        limited.put(key("e"), 5, chunkSized);

        assertNull(limited.get(key("a")), "forgotten early, its chunk making room for a fourth");
        assertEquals(2, limited.oldestTime());
        assertArrayEquals(new byte[] {3}, limited.get(key("c")).decision());
        assertEquals(5, limited.get(key("e")).time());
        assertEquals(4, limited.size());

        limited.put(key("f"), 6, new byte[] {6});

        assertNull(limited.get(key("b")));
        assertNull(limited.get(key("c")), "a chunk leaves only once all its ids are forgotten");
        assertEquals(4, limited.oldestTime());
        assertEquals(3, limited.size());
        assertArrayEquals(new byte[] {6}, limited.get(key("f")).decision());
    }

    private static byte[] key(String id) {
        return id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch of remembered request ids: what goes in comes out, and when it takes no more. */
class RequestIdBatchTest {

    private record Entry(String id, long time, byte[] decision) {
    }

    @Test
    void theIdsTimesAndDecisionsWrittenAreReadBackInOrder() {
        RequestIdBatch batch = new RequestIdBatch();
        batch.add(utf8("3:k-1r-1"), 1_000, new byte[] {1, 2, 3});
        batch.add(utf8("3:k-1ré-\"2\""), 2_000, new byte[0]);

        List<Entry> read = entries(roundTrip(batch));

        assertEquals(2, read.size());
        assertEquals("3:k-1r-1", read.get(0).id());
        assertEquals(1_000, read.get(0).time());
        assertArrayEquals(new byte[] {1, 2, 3}, read.get(0).decision());
        assertEquals("3:k-1ré-\"2\"", read.get(1).id());
        assertEquals(2_000, read.get(1).time());
        assertEquals(2_000, batch.newest());
    }

    @Test
    void writingABatchSealsItSoLaterIdsGoIntoTheNext() {
        RequestIdBatch batch = new RequestIdBatch();
        batch.add(utf8("a"), 1, new byte[0]);
        assertFalse(batch.sealed());

        RequestIdBatch read = roundTrip(batch);

        assertTrue(batch.sealed());
        assertTrue(read.sealed());
        assertThrows(IllegalStateException.class, () -> batch.add(utf8("b"), 2, new byte[0]));
    }

    @Test
    void aBatchTakesIdsUntilItReachesItsSealSizeAndStaysFarUnder64KiB() {
        RequestIdBatch batch = new RequestIdBatch();
        byte[] decision = new byte[40];
        int ids = 0;
        while (!batch.sealed()) {
            batch.add(utf8("256:" + "k".repeat(256) + "r-" + ids++), ids, decision);
        }

        byte[] written = RequestIdBatch.SERDE.serializer().serialize("t", batch);

        assertTrue(written.length >= RequestIdBatch.SEAL_BYTES && written.length < 40 * 1024, written.length + " bytes");
        assertEquals(ids, entries(RequestIdBatch.SERDE.deserializer().deserialize("t", written)).size());
    }

    @Test
    void bytesThatAreNotABatchAreRefused() {
        RequestIdBatch garbage = RequestIdBatch.SERDE.deserializer().deserialize("t", new byte[] {0, 0, 0, 9, 'x'});

        assertThrows(IllegalArgumentException.class, () -> entries(garbage));
        RequestIdBatch negative = RequestIdBatch.SERDE.deserializer().deserialize("t", new byte[] {-1, -1, -1, -1});
        assertThrows(IllegalArgumentException.class, () -> entries(negative));
    }

    private static RequestIdBatch roundTrip(RequestIdBatch batch) {
        byte[] bytes = RequestIdBatch.SERDE.serializer().serialize("t", batch);
        return RequestIdBatch.SERDE.deserializer().deserialize("t", Arrays.copyOf(bytes, bytes.length));
    }

    private static List<Entry> entries(RequestIdBatch batch) {
        List<Entry> entries = new ArrayList<>();
        batch.forEach((id, time, decision) -> entries.add(new Entry(id, time, decision)));
        return entries;
    }

    private static byte[] utf8(String id) {
        return id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}

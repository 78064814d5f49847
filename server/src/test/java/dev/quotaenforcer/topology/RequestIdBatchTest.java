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
        Log log = new Log(1024);
        log.append(utf8("3:k-1r-1"), 1_000, new byte[] {1, 2, 3});
        RequestIdBatch batch = new RequestIdBatch(log.bytes, log.end);
        log.append(utf8("3:k-1r-2"), 1_500, new byte[] {4}, batch);
        log.append(utf8("3:k-1ré-\"2\""), 2_000, new byte[0], batch);
        log.append(utf8("3:k-1r-3"), 2_500, new byte[] {5});

        List<Entry> read = entries(roundTrip(batch));

        assertEquals(2, read.size(), "the entries the batch took, not those before or after it in the same bytes");
        assertEquals("3:k-1r-2", read.get(0).id());
        assertEquals(1_500, read.get(0).time());
        assertArrayEquals(new byte[] {4}, read.get(0).decision());
        assertEquals("3:k-1ré-\"2\"", read.get(1).id());
        assertEquals(2_000, read.get(1).time());
        assertEquals(2_000, batch.newest());
    }

    @Test
    void writingABatchSealsItSoLaterIdsGoIntoTheNext() {
        Log log = new Log(1024);
        RequestIdBatch batch = new RequestIdBatch(log.bytes, log.end);
        log.append(utf8("a"), 1, new byte[0], batch);
        assertFalse(batch.sealed());
        assertTrue(batch.continuesAt(log.bytes, log.end));

        RequestIdBatch read = roundTrip(batch);

        assertTrue(batch.sealed());
        assertTrue(read.sealed());
        assertFalse(batch.continuesAt(log.bytes, log.end));
        int before = log.end;
        log.append(utf8("b"), 2, new byte[0]);
        assertThrows(IllegalStateException.class, () -> batch.take(log.end, 2));
        assertEquals(before, RequestIdBatch.SERDE.serializer().serialize("t", batch).length);
    }

    @Test
    void aBatchTakesOnlyAnEntryThatFollowsItInItsOwnBytes() {
        Log log = new Log(1024);
        RequestIdBatch batch = new RequestIdBatch(log.bytes, log.end);
        log.append(utf8("a"), 1, new byte[0], batch);

        assertFalse(batch.continuesAt(new Log(1024).bytes, log.end), "other bytes");
        assertFalse(batch.continuesAt(log.bytes, log.end + 1), "a gap");
        assertThrows(IllegalArgumentException.class, () -> batch.take(log.end - 1, 2), "an end before its own");
        assertThrows(IllegalArgumentException.class, () -> batch.take(log.bytes.length + 1, 2), "past its bytes");
    }

    @Test
    void aBatchTakesIdsUntilItReachesItsSealSizeAndStaysFarUnder64KiB() {
        Log log = new Log(64 * 1024);
        RequestIdBatch batch = new RequestIdBatch(log.bytes, log.end);
        byte[] decision = new byte[40];
        int ids = 0;
        while (!batch.sealed()) {
            log.append(utf8("256:" + "k".repeat(256) + "r-" + ids++), ids, decision, batch);
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

    /** Bytes entries are written into one after another, as the index's chunks are. */
    private static final class Log {
        final byte[] bytes;
        int end;

        Log(int size) {
            bytes = new byte[size];
        }

        void append(byte[] id, long time, byte[] decision) {
            end = RequestIdIndex.writeEntry(bytes, end, id, time, decision);
        }

        void append(byte[] id, long time, byte[] decision, RequestIdBatch batch) {
            append(id, time, decision);
            batch.take(end, time);
        }
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

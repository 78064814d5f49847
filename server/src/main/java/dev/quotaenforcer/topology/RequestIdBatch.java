package dev.quotaenforcer.topology;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The request ids a task remembered between two write-backs of its store, with their decisions and
 * record times, in one changelog record: remembering an id costs appending a few dozen bytes, not a
 * record of its own. A batch grows until it is written (which seals it) or reaches
 * {@link #SEAL_BYTES}; each entry is its id's length and UTF-8 bytes, its time, and its decision's
 * length and bytes ({@link RequestIdIndex#writeEntry}).
 *
 * <p>A batch being filled does not copy its entries: they are a run of the bytes the task's
 * {@link RequestIdIndex} appended them to, which it never writes over, and the batch is those bytes
 * from where it starts to where its last entry ends. An array of the batch's own took 33 KB per batch
 * and a second copy of every entry: {@code DecisionPathBenchmarks} allocates about 120 bytes less per
 * decision without it.
 */
final class RequestIdBatch {

    /** Once this large, a batch takes no more ids: with its last entry it stays far under 64 KiB. */
    static final int SEAL_BYTES = 32 * 1024;

    /** Serializes a batch (sealing it) and reads one back (sealed). */
    static final Serde<RequestIdBatch> SERDE = Serdes.serdeFrom(new BatchSerializer(), new BatchDeserializer());

    /** What one entry holds. */
    interface Visitor {
        void entry(String id, long time, byte[] decision);
    }

    /** The bytes the entries are in: shared with the index while the batch is filled, its own once read. */
    private final byte[] bytes;
    private final int from;
    private int to;
    private long newest = Long.MIN_VALUE;
    private boolean sealed;

    /** An empty batch, whose entries are to be written one after another into {@code log} from {@code from}. */
    RequestIdBatch(byte[] log, int from) {
        this.bytes = log;
        this.from = from;
        this.to = from;
    }

    private RequestIdBatch(byte[] written) {
        bytes = written;
        from = 0;
        to = written.length;
        sealed = true;
    }

    /** Whether the batch takes no more ids: written to the store, read from it, or full. */
    boolean sealed() {
        return sealed || to - from >= SEAL_BYTES;
    }

    /** Whether an entry written into {@code log} at {@code at} may join the batch: it takes ids, and ends there. */
    boolean continuesAt(byte[] log, int at) {
        return !sealed() && log == bytes && at == to;
    }

    /** The newest record time of an id in the batch, as far as this batch was filled here. */
    long newest() {
        return newest;
    }

    /** Takes in the entry written into the batch's bytes from where it ended up to {@code end}, with its record time. */
    void take(int end, long time) {
        if (sealed()) {
            throw new IllegalStateException("a sealed batch takes no more ids");
        }
        if (end <= to || end > bytes.length) {
            throw new IllegalArgumentException("an entry ending at " + end + " does not follow the batch's end " + to);
        }
        to = end;
        newest = Math.max(newest, time);
    }

    /**
     * Reads every entry to {@code visitor}.
     *
     * @throws IllegalArgumentException when the bytes are not a batch this version wrote
     */
    void forEach(Visitor visitor) {
        ByteBuffer in = ByteBuffer.wrap(bytes, from, to - from);
        try {
            while (in.hasRemaining()) {
                String id = new String(take(in, in.getInt()), StandardCharsets.UTF_8);
                long time = in.getLong();
                visitor.entry(id, time, take(in, in.getInt()));
            }
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not a batch of request ids", e);
        }
    }

    private static byte[] take(ByteBuffer in, int length) {
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("an entry's length " + length + " runs past the batch");
        }
        byte[] taken = new byte[length];
        in.get(taken);
        return taken;
    }

    private static final class BatchSerializer implements Serializer<RequestIdBatch> {
        @Override
        public byte[] serialize(String topic, RequestIdBatch batch) {
            if (batch == null) {
                return null;
            }
            // Once written, the batch is what the changelog holds: later ids go into the next one.
            batch.sealed = true;
            return Arrays.copyOfRange(batch.bytes, batch.from, batch.to);
        }
    }

    private static final class BatchDeserializer implements Deserializer<RequestIdBatch> {
        @Override
        public RequestIdBatch deserialize(String topic, byte[] data) {
            return data == null ? null : new RequestIdBatch(data);
        }
    }
}

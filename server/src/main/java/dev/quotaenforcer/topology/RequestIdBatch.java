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
 * length and bytes.
 */
final class RequestIdBatch {

    /** Once this large, a batch takes no more ids: with its last entry it stays far under 64 KiB. */
    static final int SEAL_BYTES = 32 * 1024;
    /** Room for a full batch: its last entry may take it past {@link #SEAL_BYTES}. */
    private static final int FULL_BYTES = SEAL_BYTES + 1024;

    /** Serializes a batch (sealing it) and reads one back (sealed). */
    static final Serde<RequestIdBatch> SERDE = Serdes.serdeFrom(new BatchSerializer(), new BatchDeserializer());

    /** What one entry holds. */
    interface Visitor {
        void entry(String id, long time, byte[] decision);
    }

    private byte[] bytes;
    private int size;
    private long newest = Long.MIN_VALUE;
    private boolean sealed;

    RequestIdBatch() {
        // Room for a full batch from the start: grown by doubling from 1 KiB, each batch's bytes were copied
        // about twice over, as much garbage per decision as its entry. Sizing a batch by the one before it
        // allocated more: each commit's first id goes into a batch of its own, written at once.
        bytes = new byte[FULL_BYTES];
    }

    private RequestIdBatch(byte[] written) {
        bytes = written;
        size = written.length;
        sealed = true;
    }

    /** Whether the batch takes no more ids: written to the store, read from it, or full. */
    boolean sealed() {
        return sealed || size >= SEAL_BYTES;
    }

    /** The newest record time of an id in the batch, as far as this batch was filled here. */
    long newest() {
        return newest;
    }

    /** Appends an id, given as its UTF-8 bytes. */
    void add(byte[] idBytes, long time, byte[] decision) {
        if (sealed()) {
            throw new IllegalStateException("a sealed batch takes no more ids");
        }
        ensure(8 + idBytes.length + 8 + decision.length);
        ByteBuffer out = ByteBuffer.wrap(bytes, size, bytes.length - size);
        out.putInt(idBytes.length).put(idBytes).putLong(time).putInt(decision.length).put(decision);
        size = out.position();
        newest = Math.max(newest, time);
    }

    /**
     * Reads every entry to {@code visitor}.
     *
     * @throws IllegalArgumentException when the bytes are not a batch this version wrote
     */
    void forEach(Visitor visitor) {
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, size);
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

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }

    private static final class BatchSerializer implements Serializer<RequestIdBatch> {
        @Override
        public byte[] serialize(String topic, RequestIdBatch batch) {
            if (batch == null) {
                return null;
            }
            // Once written, the batch is what the changelog holds: later ids go into the next one.
            batch.sealed = true;
            return Arrays.copyOf(batch.bytes, batch.size);
        }
    }

    private static final class BatchDeserializer implements Deserializer<RequestIdBatch> {
        @Override
        public RequestIdBatch deserialize(String topic, byte[] data) {
            return data == null ? null : new RequestIdBatch(data);
        }
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.VarBytes;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;

/**
 * Changes of a store's keys in one changelog record ({@link BatchChangelogStore}): each key with its
 * new value, or with its deletion.
 *
 * <p>Layout: the byte {@link #FORMAT}, then until the end one change each: the key's length as a
 * varint and its bytes, then the value's length plus one as a varint (0: deleted) and its bytes.
 */
final class ChangeBatch {

    static final int FORMAT = 1;
    /**
     * Changes go into one batch until it holds this many bytes; a single larger change gets a batch of its
     * own. Well under the producer's and the broker's default limit of 1 MiB per record.
     */
    static final int MAX_BYTES = 256 * 1024;

    /** What one change holds: the key and its value, null when it was deleted. */
    interface Visitor {
        void change(byte[] key, byte[] value);
    }

    private ChangeBatch() {
    }

    /** The changes, in their order, as batches of at most about {@link #MAX_BYTES} each. */
    static List<byte[]> encode(List<KeyValue<Bytes, byte[]>> changes) {
        List<byte[]> batches = new ArrayList<>(1);
        VarBytes.Writer batch = null;
        int size = 0;
        for (KeyValue<Bytes, byte[]> change : changes) {
            byte[] key = change.key.get();
            int changeBytes = key.length + (change.value == null ? 0 : change.value.length) + 10;
            if (batch != null && size + changeBytes > MAX_BYTES) {
                batches.add(batch.toByteArray());
                batch = null;
            }
            if (batch == null) {
                batch = new VarBytes.Writer((int) Math.min(MAX_BYTES, Math.max(64L, (long) changes.size() * changeBytes)) + 16);
                batch.write(FORMAT);
                size = 1;
            }
            batch.unsigned(key.length);
            batch.bytes(key);
            if (change.value == null) {
                batch.unsigned(0);
            } else {
                batch.unsigned(change.value.length + 1L);
                batch.bytes(change.value);
            }
            size += changeBytes;
        }
        if (batch != null) {
            batches.add(batch.toByteArray());
        }
        return batches;
    }

    /**
     * Reads every change of a batch to {@code visitor}, in order.
     *
     * @throws IllegalArgumentException when the bytes are not a batch this version wrote; then nothing was read
     */
    static void forEach(byte[] batch, Visitor visitor) {
        List<byte[]> read = new ArrayList<>();
        VarBytes.Reader in = new VarBytes.Reader(batch);
        if (!in.hasMore() || in.read() != FORMAT) {
            throw new IllegalArgumentException("not a batch of changes of format " + FORMAT);
        }
        while (in.hasMore()) {
            read.add(in.bytes(length(in.unsigned())));
            long valueLength = in.unsigned();
            read.add(valueLength == 0 ? null : in.bytes(length(valueLength - 1)));
        }
        // Read whole before any change is given out: a batch that cannot be read changes nothing.
        for (int i = 0; i < read.size(); i += 2) {
            visitor.change(read.get(i), read.get(i + 1));
        }
    }

    private static int length(long length) {
        if (length > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a change's length " + length + " runs past any batch");
        }
        return (int) length;
    }
}

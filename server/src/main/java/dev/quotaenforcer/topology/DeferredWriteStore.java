package dev.quotaenforcer.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A store of bytes beneath the changelog whose writes wait in a hash map until Kafka Streams commits
 * the store's offsets (a checkpoint), or until more than {@link #MAX_PENDING} wait: every change is
 * logged as it is put, and a key changed at every commit is written into RocksDB once per checkpoint
 * rather than once per commit.
 *
 * <p>Under exactly-once Kafka Streams checkpoints a running task's stores only as it suspends or
 * closes it cleanly, and wipes them after any other close, so the changelog alone carries each
 * commit (with {@code enable.transactional.statestores} on it checkpoints at every commit instead,
 * and what waits is written then): writing each commit's changes into RocksDB too (a JNI call into
 * a write batch and its memtable inserts) was about a fifth of the deciding thread's time
 * ({@code DecisionPathBenchmarks}, 100 ms commits). Under at-least-once a checkpoint writes what
 * waits first, so the offsets a store records never run ahead of its contents. What waits is
 * dropped at any other close, as a store closed dirty is restored from its changelog.
 *
 * <p>Reads see what waits, from any thread: a get looks here first, and an iteration merges a sorted
 * copy of it with RocksDB's. Only the task's thread writes. Queries of Kafka Streams' interactive
 * query API v2 go to RocksDB and miss what waits; the enforcer reads its stores through
 * {@code KafkaStreams.store} only.
 */
final class DeferredWriteStore extends WrappedStateStore<KeyValueStore<Bytes, byte[]>, Bytes, byte[]>
        implements KeyValueStore<Bytes, byte[]> {

    /** The most writes that wait, bounding the heap they take per store and task. */
    static final int MAX_PENDING = 20_000;
    /**
     * How many waiting writes go into RocksDB when more than {@link #MAX_PENDING} wait: one batch of
     * 20,000 took 20 to 53 ms on the benchmark machine, a stall of the task's thread, and one of 2,000 about 3 ms.
     */
    static final int WRITE_CHUNK = 1_000;
    /** Marks a key deleted while its deletion waits (a concurrent map cannot hold null). */
    private static final byte[] DELETED = new byte[0];

    private final Map<Bytes, byte[]> pending = new ConcurrentHashMap<>();

    private DeferredWriteStore(KeyValueStore<Bytes, byte[]> stored) {
        super(stored);
    }

    /** Supplies deferred-write stores over what {@code stored} supplies, under its name. */
    static KeyValueBytesStoreSupplier supplier(KeyValueBytesStoreSupplier stored) {
        return new WrappingSupplier(stored, DeferredWriteStore::new);
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        pending.clear();
        super.init(context, root);
    }

    @Override
    public byte[] get(Bytes key) {
        byte[] waiting = pending.get(key);
        if (waiting != null) {
            return waiting == DELETED ? null : waiting;
        }
        return wrapped().get(key);
    }

    @Override
    public void put(Bytes key, byte[] value) {
        pending.put(key, value == null ? DELETED : value);
        if (pending.size() > MAX_PENDING) {
            writePending(WRITE_CHUNK);
        }
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        byte[] current = get(key);
        if (current == null) {
            put(key, value);
        }
        return current;
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        entries.forEach(entry -> put(entry.key, entry.value));
    }

    @Override
    public byte[] delete(Bytes key) {
        byte[] current = get(key);
        put(key, null);
        return current;
    }

    /** Writes what waits into the store beneath, in one batch, before the offsets it reaches are recorded. */
    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        writePending(Integer.MAX_VALUE);
        super.commit(changelogOffsets);
    }

    /** Drops what waits: a store closed without a checkpoint is restored from its changelog. */
    @Override
    public void close() {
        pending.clear();
        super.close();
    }

    /** Writes up to {@code most} of the waiting writes into the store beneath, in one batch. */
    private void writePending(int most) {
        if (pending.isEmpty()) {
            return;
        }
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>(Math.min(most, pending.size()));
        for (Map.Entry<Bytes, byte[]> waiting : pending.entrySet()) {
            if (batch.size() == most) {
                break;
            }
            batch.add(KeyValue.pair(waiting.getKey(), waiting.getValue() == DELETED ? null : waiting.getValue()));
        }
        wrapped().putAll(batch);
        // Only this thread puts, and a concurrent reader finds each value here until it is in the store.
        batch.forEach(written -> pending.remove(written.key));
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return merged(waiting(key -> within(key, from, to)), wrapped().range(from, to), false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return merged(waiting(key -> within(key, from, to)).descendingMap(), wrapped().reverseRange(from, to), true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return merged(waiting(key -> true), wrapped().all(), false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return merged(waiting(key -> true).descendingMap(), wrapped().reverseAll(), true);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        byte[] start = prefixKeySerializer.serialize(null, prefix);
        return merged(waiting(key -> startsWith(key.get(), start)), wrapped().prefixScan(prefix, prefixKeySerializer), false);
    }

    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries() + pending.size();
    }

    /**
     * A sorted copy of what waits under the keys {@code iterated} takes, taken before the store's own
     * iterator opens: a value written meanwhile is then in one or the other.
     */
    private NavigableMap<Bytes, byte[]> waiting(Predicate<Bytes> iterated) {
        NavigableMap<Bytes, byte[]> waiting = new TreeMap<>();
        pending.forEach((key, value) -> {
            if (iterated.test(key)) {
                waiting.put(key, value);
            }
        });
        return waiting;
    }

    /** Whether {@code key} lies between {@code from} and {@code to}, inclusive; null for no bound. */
    private static boolean within(Bytes key, Bytes from, Bytes to) {
        return (from == null || key.compareTo(from) >= 0) && (to == null || key.compareTo(to) <= 0);
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static KeyValueIterator<Bytes, byte[]> merged(NavigableMap<Bytes, byte[]> waiting,
                                                          KeyValueIterator<Bytes, byte[]> stored, boolean reverse) {
        return new MergedIterator(waiting.entrySet().iterator(), stored, reverse);
    }

    /**
     * What waits and what is stored, in key order (reversed for a reverse iteration): where both hold a
     * key, what waits is newer; a deletion that waits hides the stored value.
     */
    private static final class MergedIterator implements KeyValueIterator<Bytes, byte[]> {
        private final Iterator<Map.Entry<Bytes, byte[]>> waiting;
        private final KeyValueIterator<Bytes, byte[]> stored;
        private final int direction;
        private Map.Entry<Bytes, byte[]> nextWaiting;
        private KeyValue<Bytes, byte[]> next;

        MergedIterator(Iterator<Map.Entry<Bytes, byte[]>> waiting, KeyValueIterator<Bytes, byte[]> stored, boolean reverse) {
            this.waiting = waiting;
            this.stored = stored;
            this.direction = reverse ? -1 : 1;
            this.nextWaiting = waiting.hasNext() ? waiting.next() : null;
        }

        @Override
        public boolean hasNext() {
            while (next == null && (nextWaiting != null || stored.hasNext())) {
                Bytes storedKey = stored.hasNext() ? stored.peekNextKey() : null;
                int order = nextWaiting == null ? 1
                        : storedKey == null ? -1 : direction * nextWaiting.getKey().compareTo(storedKey);
                if (order > 0) {
                    next = stored.next();
                } else {
                    if (order == 0) {
                        stored.next();
                    }
                    Map.Entry<Bytes, byte[]> taken = nextWaiting;
                    nextWaiting = waiting.hasNext() ? waiting.next() : null;
                    if (taken.getValue() != DELETED) {
                        next = KeyValue.pair(taken.getKey(), taken.getValue());
                    }
                }
            }
            return next != null;
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            KeyValue<Bytes, byte[]> taken = next;
            next = null;
            return taken;
        }

        @Override
        public Bytes peekNextKey() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return next.key;
        }

        @Override
        public void close() {
            stored.close();
        }
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.VarBytes;
import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorContextUtils;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.internals.StateRestoreCallbackAdapter;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store of bytes that writes its changes to its changelog in batches ({@link ChangeBatch}): one
 * record per write into it, however many keys the write changed, where Kafka Streams' own
 * changelogging writes a record per key. A task's write-back store above it writes once per commit,
 * so under exactly-once the changelog takes a record or two per task and commit instead of one per
 * key changed in it (a third of a record per decision in the throughput benchmark).
 *
 * <p>Batch records are keyed by their number, counted up per task; their keys start with the byte
 * 0xFF, which no UTF-8 text does, so they never meet a record that Kafka Streams' changelogging wrote
 * under an API key before this store did (read back as it was, see below). Compaction cannot drop a
 * batch by key, so the store retires them itself: once the batches written since the last copy hold
 * {@link #LOG_RATIO} times the bytes of that copy (at least {@link #MIN_LOG_BYTES}) or number
 * {@link #MAX_BATCHES}, it copies every entry it holds into new batches, a chunk of
 * {@link #COPY_CHUNK} entries per write, and then writes a tombstone for each batch numbered before
 * the copy began. Those batches change nothing a later one does not: every entry alive is in the
 * copy or in a batch after it, and a deletion's key is in neither. A restore reads the batches in
 * their order, and at most the copy and what came after it, about {@code 1 + LOG_RATIO} times the
 * entries' bytes.
 *
 * <p>The numbers the store keeps of its log (the next batch number, the oldest not retired, the
 * bytes since the last copy) are stored in its own RocksDB under a key of their own ({@link #LOG}),
 * written with every batch, so a store reopened from a checkpoint, which restores nothing, knows them.
 * A restore keeps them too, from the batches it reads.
 *
 * <p>Records written under an API key, by Kafka Streams' changelogging before this store, are restored
 * as they were. Until the first copy has ended, the store writes a tombstone under the key itself for
 * every key it deletes, and the copy does for every key it copies, ahead of the copy: afterwards no
 * such record is left that a later restore could read an old value from.
 *
 * <p>Whoever can write the changelog could put anything there: a batch that cannot be read is logged
 * and skipped whole, so it changes no key.
 */
final class BatchChangelogStore extends WrappedStateStore<KeyValueStore<Bytes, byte[]>, Bytes, byte[]>
        implements KeyValueStore<Bytes, byte[]> {

    /** The first byte of every key this store writes of its own: no UTF-8 text has it. */
    private static final byte OWN = (byte) 0xFF;
    /** The key of the store's numbers of its log, in its own RocksDB only (never in the changelog). */
    static final Bytes LOG = Bytes.wrap(new byte[] {OWN, 'l'});
    /** A copy starts once the batches since the last hold this many times its bytes... */
    static final int LOG_RATIO = 4;
    /** ...and at least this many bytes, */
    static final long MIN_LOG_BYTES = 8L * 1024 * 1024;
    /** or once this many batches were written since: each is a record a restore reads, and a tombstone to write. */
    static final long MAX_BATCHES = 4096;
    /** How many entries a copy writes per write into the store: one chunk stalls the task's thread a few milliseconds. */
    static final int COPY_CHUNK = 5_000;
    /** Batch numbers stay below this, so no number read from the changelog can overflow the count. */
    private static final long MAX_NUMBER = 1L << 62;
    private static final int LOG_FORMAT = 1;
    private static final Logger LOG_LINES = LoggerFactory.getLogger(BatchChangelogStore.class);

    private InternalProcessorContext<?, ?> context;
    /** Every batch number in the changelog is below it. */
    private long nextNumber;
    /** Every batch numbered below it is retired; {@link Long#MAX_VALUE} while no batch is known. */
    private long oldestAlive;
    /** Bytes and batches written since the last copy began. */
    private long loggedBytes;
    private long loggedBatches;
    /** The bytes of the last copy. */
    private long copyBytes;
    /** Whether records written under API keys, before batches, may be in the changelog. */
    private boolean legacy;
    /** The number of the first batch of the copy under way; -1 when none is. */
    private long copyFrom = -1;
    /** The last key the copy under way took; null before its first. */
    private Bytes copiedTo;
    private long copying;

    private BatchChangelogStore(KeyValueStore<Bytes, byte[]> stored) {
        super(stored);
    }

    /**
     * Builds a store of {@code name} whose changelog takes batches: RocksDB beneath writes that wait for
     * the checkpoint ({@link DeferredWriteStore}), with Kafka Streams' metered, typed store above.
     */
    static <K, V> StoreBuilder<KeyValueStore<K, V>> builder(String name, Serde<K> keySerde, Serde<V> valueSerde) {
        return new Builder<>(name, keySerde, valueSerde);
    }

    /** Supplies batch-logging stores over what {@code stored} supplies, under its name. */
    static KeyValueBytesStoreSupplier supplier(KeyValueBytesStoreSupplier stored) {
        return new WrappingSupplier(stored, BatchChangelogStore::new);
    }

    @Override
    public void init(StateStoreContext stateStoreContext, StateStore root) {
        this.context = ProcessorContextUtils.asInternalProcessorContext(stateStoreContext);
        super.init(new Restoring(stateStoreContext), root);
        copyFrom = -1;
        copiedTo = null;
        byte[] numbers = wrapped().get(LOG);
        if (numbers == null) {
            nextNumber = 0;
            oldestAlive = Long.MAX_VALUE;
            loggedBytes = 0;
            loggedBatches = 0;
            copyBytes = 0;
            // Entries without numbers: a store Kafka Streams' changelogging kept before this one did.
            try (KeyValueIterator<Bytes, byte[]> entries = wrapped().all()) {
                legacy = entries.hasNext();
            }
        } else {
            readNumbers(numbers);
        }
    }

    @Override
    public byte[] get(Bytes key) {
        return isOwn(key) ? null : wrapped().get(key);
    }

    @Override
    public void put(Bytes key, byte[] value) {
        wrapped().put(key, value);
        log(List.of(KeyValue.pair(key, value)));
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
        wrapped().putAll(entries);
        log(entries);
    }

    @Override
    public byte[] delete(Bytes key) {
        byte[] current = get(key);
        put(key, null);
        return current;
    }

    /** Writes the changes as batches, the next chunk of a copy when one is due, and the log's numbers. */
    private void log(List<KeyValue<Bytes, byte[]>> changes) {
        long timestamp = timestamp();
        if (oldestAlive == Long.MAX_VALUE) {
            oldestAlive = nextNumber;
        }
        for (byte[] batch : ChangeBatch.encode(changes)) {
            loggedBytes += batch.length;
            loggedBatches++;
            send(batchKey(nextNumber++), batch, timestamp);
        }
        if (legacy) {
            for (KeyValue<Bytes, byte[]> change : changes) {
                if (change.value == null) {
                    send(change.key, null, timestamp);
                }
            }
        }
        copy(timestamp);
        wrapped().put(LOG, numbers());
    }

    /** Starts a copy when one is due, and writes its next chunk while one is under way. */
    private void copy(long timestamp) {
        if (copyFrom < 0) {
            if (!legacy && loggedBatches <= MAX_BATCHES && loggedBytes <= Math.max(MIN_LOG_BYTES, LOG_RATIO * copyBytes)) {
                return;
            }
            copyFrom = nextNumber;
            copiedTo = null;
            copying = 0;
            loggedBytes = 0;
            loggedBatches = 0;
        }
        List<KeyValue<Bytes, byte[]>> chunk = new ArrayList<>();
        boolean more;
        // Read afresh for each chunk: what changed since the last one is read as it is now.
        try (KeyValueIterator<Bytes, byte[]> entries = copiedTo == null ? wrapped().all() : wrapped().range(copiedTo, null)) {
            while (chunk.size() < COPY_CHUNK && entries.hasNext()) {
                KeyValue<Bytes, byte[]> entry = entries.next();
                if (!isOwn(entry.key) && !entry.key.equals(copiedTo)) {
                    chunk.add(entry);
                }
            }
            more = entries.hasNext();
        }
        if (legacy) {
            // Ahead of the copy, so a restore reads an entry's old record, then its tombstone, then the copy.
            chunk.forEach(entry -> send(entry.key, null, timestamp));
        }
        for (byte[] batch : ChangeBatch.encode(chunk)) {
            copying += batch.length;
            send(batchKey(nextNumber++), batch, timestamp);
        }
        if (!chunk.isEmpty()) {
            copiedTo = chunk.get(chunk.size() - 1).key;
        }
        if (!more) {
            for (long number = oldestAlive; number < copyFrom; number++) {
                send(batchKey(number), null, timestamp);
            }
            LOG_LINES.debug("Copy of store {} of task {} ended: {} bytes; batches {} to {} retired", name(), context.taskId(),
                    copying, oldestAlive, copyFrom - 1);
            oldestAlive = copyFrom;
            copyBytes = copying;
            legacy = false;
            copyFrom = -1;
            copiedTo = null;
        }
    }

    private void send(Bytes key, byte[] value, long timestamp) {
        context.logChange(name(), key, value, timestamp, new RecordHeaders(), wrapped().getPosition());
    }

    private long timestamp() {
        ProcessorRecordContext record = context.recordContext();
        return record == null ? context.currentSystemTimeMs() : record.timestamp();
    }

    @Override
    public void clearCache() {
        copyFrom = -1;
        copiedTo = null;
        super.clearCache();
    }

    /** Takes in one changelog record as the store is restored: adds the changes it holds to {@code changes}. */
    private void restored(ConsumerRecord<byte[], byte[]> record, List<ConsumerRecord<byte[], byte[]>> changes) {
        byte[] key = record.key();
        if (key == null || !isOwn(key)) {
            // Written under an API key by Kafka Streams' changelogging, before batches: applied as it is.
            legacy = true;
            changes.add(record);
            return;
        }
        long number = batchNumber(key);
        if (number < 0) {
            LOG_LINES.error("Skipping a record of {} at offset {} of partition {}: its key is not a batch number", name(),
                    record.offset(), record.partition());
            return;
        }
        if (record.value() == null) {
            nextNumber = Math.max(nextNumber, number + 1);
            if (number == oldestAlive) {
                oldestAlive = number + 1;
            }
            return;
        }
        try {
            ChangeBatch.forEach(record.value(), (changed, value) -> {
                if (!isOwn(changed)) {
                    changes.add(change(record, changed, value));
                }
            });
        } catch (IllegalArgumentException e) {
            LOG_LINES.error("Skipping unreadable batch {} of {} at offset {} of partition {}: {}", number, name(),
                    record.offset(), record.partition(), e.getMessage());
            return;
        }
        nextNumber = Math.max(nextNumber, number + 1);
        oldestAlive = Math.min(oldestAlive, number);
        loggedBytes += record.value().length;
        loggedBatches++;
    }

    private static ConsumerRecord<byte[], byte[]> change(ConsumerRecord<byte[], byte[]> batch, byte[] key, byte[] value) {
        return new ConsumerRecord<>(batch.topic(), batch.partition(), batch.offset(), batch.timestamp(), batch.timestampType(),
                key.length, value == null ? -1 : value.length, key, value, batch.headers(), batch.leaderEpoch());
    }

    private byte[] numbers() {
        VarBytes.Writer out = new VarBytes.Writer(48);
        out.write(LOG_FORMAT);
        out.unsigned(nextNumber);
        out.unsigned(oldestAlive == Long.MAX_VALUE ? nextNumber : oldestAlive);
        out.unsigned(loggedBytes);
        out.unsigned(loggedBatches);
        out.unsigned(copyBytes);
        out.write(legacy ? 1 : 0);
        return out.toByteArray();
    }

    private void readNumbers(byte[] numbers) {
        try {
            VarBytes.Reader in = new VarBytes.Reader(numbers);
            if (in.read() != LOG_FORMAT) {
                throw new IllegalArgumentException("format " + numbers[0]);
            }
            nextNumber = in.unsigned();
            oldestAlive = in.unsigned();
            loggedBytes = in.unsigned();
            loggedBatches = in.unsigned();
            copyBytes = in.unsigned();
            legacy = in.read() == 1;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the numbers of store " + name() + "'s changelog cannot be read: " + e.getMessage(), e);
        }
    }

    /** A batch's key: {@link #OWN}, 'b', and its number as 8 bytes. */
    static Bytes batchKey(long number) {
        return Bytes.wrap(ByteBuffer.allocate(10).put(OWN).put((byte) 'b').putLong(number).array());
    }

    /** The number in a batch's key, or -1 when the key is not one. */
    static long batchNumber(byte[] key) {
        if (key.length != 10 || key[0] != OWN || key[1] != 'b') {
            return -1;
        }
        long number = ByteBuffer.wrap(key, 2, 8).getLong();
        return number < 0 || number >= MAX_NUMBER ? -1 : number;
    }

    private static boolean isOwn(Bytes key) {
        return isOwn(key.get());
    }

    private static boolean isOwn(byte[] key) {
        return key.length > 0 && key[0] == OWN;
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return new EntriesOnly(wrapped().range(from, to));
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return new EntriesOnly(wrapped().reverseRange(from, to));
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return new EntriesOnly(wrapped().all());
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return new EntriesOnly(wrapped().reverseAll());
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        return new EntriesOnly(wrapped().prefixScan(prefix, prefixKeySerializer));
    }

    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries();
    }

    /** The store's entries without its own keys. */
    private static final class EntriesOnly implements KeyValueIterator<Bytes, byte[]> {
        private final KeyValueIterator<Bytes, byte[]> stored;

        EntriesOnly(KeyValueIterator<Bytes, byte[]> stored) {
            this.stored = stored;
        }

        @Override
        public boolean hasNext() {
            while (stored.hasNext()) {
                if (!isOwn(stored.peekNextKey())) {
                    return true;
                }
                stored.next();
            }
            return false;
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return stored.next();
        }

        @Override
        public Bytes peekNextKey() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return stored.peekNextKey();
        }

        @Override
        public void close() {
            stored.close();
        }
    }

    /** Hands each restored batch's changes, and the log's numbers after it, to the restore of the store beneath. */
    private final class BatchRestore implements RecordBatchingStateRestoreCallback {
        private final RecordBatchingStateRestoreCallback stored;

        BatchRestore(StateRestoreCallback stored) {
            this.stored = StateRestoreCallbackAdapter.adapt(stored);
        }

        @Override
        public void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
            List<ConsumerRecord<byte[], byte[]>> changes = new ArrayList<>(records.size());
            ConsumerRecord<byte[], byte[]> last = null;
            for (ConsumerRecord<byte[], byte[]> record : records) {
                restored(record, changes);
                last = record;
            }
            if (last != null) {
                // Written with the changes, in the same write into RocksDB: a store reopened from its checkpoint knows them.
                changes.add(change(last, LOG.get(), numbers()));
            }
            stored.restoreBatch(changes);
        }
    }

    /** The task's context, but for the restore the store beneath registers, which takes batches through {@link BatchRestore}. */
    private final class Restoring implements StateStoreContext {
        private final StateStoreContext delegate;

        Restoring(StateStoreContext delegate) {
            this.delegate = delegate;
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback) {
            delegate.register(store, new BatchRestore(callback));
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback, CommitCallback commitCallback) {
            delegate.register(store, new BatchRestore(callback), commitCallback);
        }

        @Override
        public String applicationId() {
            return delegate.applicationId();
        }

        @Override
        public TaskId taskId() {
            return delegate.taskId();
        }

        @Override
        public Optional<RecordMetadata> recordMetadata() {
            return delegate.recordMetadata();
        }

        @Override
        public Serde<?> keySerde() {
            return delegate.keySerde();
        }

        @Override
        public Serde<?> valueSerde() {
            return delegate.valueSerde();
        }

        @Override
        public File stateDir() {
            return delegate.stateDir();
        }

        @Override
        public StreamsMetrics metrics() {
            return delegate.metrics();
        }

        @Override
        public Map<String, Object> appConfigs() {
            return delegate.appConfigs();
        }

        @Override
        public Map<String, Object> appConfigsWithPrefix(String prefix) {
            return delegate.appConfigsWithPrefix(prefix);
        }
    }

    /**
     * Builds Kafka Streams' typed key-value store over a batch-logging one: it says logging is on, so
     * Kafka Streams creates and restores the changelog, while the store it builds logs itself.
     */
    private static final class Builder<K, V> implements StoreBuilder<KeyValueStore<K, V>> {
        private final String name;
        private final Serde<K> keySerde;
        private final Serde<V> valueSerde;
        private boolean logging = true;
        private Map<String, String> logConfig = Map.of();

        Builder(String name, Serde<K> keySerde, Serde<V> valueSerde) {
            this.name = name;
            this.keySerde = keySerde;
            this.valueSerde = valueSerde;
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withCachingEnabled() {
            throw new UnsupportedOperationException("a batch-logging store takes its writes from a write-back store");
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withLoggingEnabled(Map<String, String> config) {
            logging = true;
            logConfig = Map.copyOf(config);
            return this;
        }

        @Override
        public StoreBuilder<KeyValueStore<K, V>> withLoggingDisabled() {
            logging = false;
            return this;
        }

        @Override
        public KeyValueStore<K, V> build() {
            KeyValueBytesStoreSupplier rocksDb = DeferredWriteStore.supplier(Stores.persistentKeyValueStore(name));
            KeyValueBytesStoreSupplier stored = logging ? supplier(rocksDb) : rocksDb;
            // Logging off here: the batch-logging store beneath writes the changelog, not Kafka Streams' changelogging.
            return Stores.keyValueStoreBuilder(stored, keySerde, valueSerde).withCachingDisabled().withLoggingDisabled().build();
        }

        @Override
        public Map<String, String> logConfig() {
            return logConfig;
        }

        @Override
        public boolean loggingEnabled() {
            return logging;
        }

        @Override
        public String name() {
            return name;
        }
    }
}

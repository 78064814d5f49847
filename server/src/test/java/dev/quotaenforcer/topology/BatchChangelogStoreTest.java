package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a batch-logging store writes to its changelog, and that a restore of what compaction leaves of
 * that changelog, at any point, reads back the entries the store held: the oracle is a map of every
 * write made.
 */
class BatchChangelogStoreTest {

    @TempDir
    Path stateDir;
    /** Every record the stores logged, in order: the changelog partition. */
    private final List<KeyValue<Bytes, byte[]>> changelog = new ArrayList<>();
    private final List<KeyValueStore<Bytes, byte[]>> opened = new ArrayList<>();
    private RecordBatchingStateRestoreCallback restore;

    @AfterEach
    void closeStores() {
        opened.forEach(KeyValueStore::close);
    }

    @Test
    void aWriteOfManyKeysIsOneChangelogRecordAndRestoresAsTheseEntries() {
        KeyValueStore<Bytes, byte[]> store = open("first");
        List<KeyValue<Bytes, byte[]>> writes = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            writes.add(KeyValue.pair(key("key-" + i), value("v" + i)));
        }

        store.putAll(writes);

        assertEquals(1, changelog.size(), "one record for a thousand keys");
        assertEquals(0, BatchChangelogStore.batchNumber(changelog.get(0).key.get()));
        assertEquals(entries(store), restored(changelog));
        assertEquals(1000, entries(store).size());
    }

    @Test
    void aRestoreReadsDeletionsAndLaterValuesInTheirOrder() {
        KeyValueStore<Bytes, byte[]> store = open("first");
        store.putAll(List.of(KeyValue.pair(key("a"), value("1")), KeyValue.pair(key("b"), value("1"))));
        store.putAll(List.of(KeyValue.pair(key("a"), value("2")), KeyValue.pair(key("b"), null)));
        store.put(key("c"), value("1"));

        assertEquals(Map.of("a", "2", "c", "1"), restored(changelog));
        assertEquals(List.of(0L, 1L, 2L), changelog.stream().map(record -> BatchChangelogStore.batchNumber(record.key.get())).toList());
    }

    @Test
    void onceTheBatchesOutgrowTheLastCopyTheEntriesAreCopiedAndEveryEarlierBatchRetired() {
        KeyValueStore<Bytes, byte[]> store = open("first");
        Map<String, String> model = new TreeMap<>();
        Random random = new Random(20261206);
        int copiesEnded = 0;
        for (int write = 0; write < 3 * BatchChangelogStore.MAX_BATCHES; write++) {
            List<KeyValue<Bytes, byte[]>> changes = new ArrayList<>();
            Set<String> changed = new HashSet<>();
            for (int i = random.nextInt(5); i >= 0; i--) {
                // More keys than a copy takes in one write: copies run over several writes, as changes go on.
                String key = "key-" + random.nextInt(3 * BatchChangelogStore.COPY_CHUNK);
                if (!changed.add(key)) {
                    continue;
                }
                String value = random.nextInt(4) == 0 ? null : "v" + write;
                changes.add(KeyValue.pair(key(key), value == null ? null : value(value)));
                if (value == null) {
                    model.remove(key);
                } else {
                    model.put(key, value);
                }
            }
            int before = changelog.size();
            store.putAll(changes);
            copiesEnded += changelog.subList(before, changelog.size()).stream().anyMatch(record -> record.value == null) ? 1 : 0;
            if (write % 997 == 0) {
                assertEquals(model, restored(compacted(changelog, false)), "restored after write " + write);
            }
        }

        assertEquals(model, entries(store));
        assertTrue(copiesEnded >= 2, "copies that ended by retiring batches: " + copiesEnded);
        assertEquals(model, restored(changelog), "the whole log");
        assertEquals(model, restored(compacted(changelog, true)), "compacted, tombstones kept");
        List<KeyValue<Bytes, byte[]>> left = compacted(changelog, false);
        assertEquals(model, restored(left), "compacted, tombstones gone");
        assertTrue(left.size() <= BatchChangelogStore.MAX_BATCHES + 8,
                "what compaction leaves is the last copy and the batches since: " + left.size() + " records");
    }

    @Test
    void recordsWrittenUnderApiKeysBeforeBatchesAreRestoredAndLeftWithoutAnOldValueByTheFirstCopy() {
        // What Kafka Streams' own changelogging wrote: a record per key, the deletion of d a tombstone.
        List<KeyValue<Bytes, byte[]>> legacy = List.of(KeyValue.pair(key("a"), value("1")), KeyValue.pair(key("b"), value("1")),
                KeyValue.pair(key("c"), value("1")), KeyValue.pair(key("d"), value("1")), KeyValue.pair(key("d"), null));
        changelog.addAll(legacy);
        KeyValueStore<Bytes, byte[]> store = open("upgraded");
        restoreInto(changelog);
        assertEquals(Map.of("a", "1", "b", "1", "c", "1"), entries(store));

        store.delete(key("b"));
        store.put(key("c"), value("2"));
        // Deleted after the first copy, its deletion retired by the next: nothing may bring back its old value.
        store.delete(key("a"));
        for (int i = 0; i <= BatchChangelogStore.MAX_BATCHES; i++) {
            store.put(key("e"), value(Integer.toString(i)));
        }

        Map<String, String> model = Map.of("c", "2", "e", Long.toString(BatchChangelogStore.MAX_BATCHES));
        assertEquals(model, entries(store));
        List<KeyValue<Bytes, byte[]>> left = compacted(changelog, false);
        assertTrue(left.stream().allMatch(record -> BatchChangelogStore.batchNumber(record.key.get()) >= 0),
                "no record under an API key is left once compaction drops tombstones: " + left.size());
        assertEquals(model, restored(left));
        assertEquals(model, restored(compacted(changelog, true)));
        assertEquals(model, restored(changelog));
    }

    @Test
    void aStoreKeptBeforeBatchesTombstonesTheKeysItDeletesAndCopiesUntilItsFirstCopyEnds() {
        // The store as Kafka Streams' changelogging left it on disk, checkpointed: entries and no numbers.
        KeyValueStore<Bytes, byte[]> before = DeferredWriteStore.supplier(Stores.persistentKeyValueStore("entries")).get();
        before.init(new MockProcessorContext<>(new Properties(), new TaskId(0, 0), stateDir.resolve("kept").toFile())
                .getStateStoreContext(), before);
        before.putAll(List.of(KeyValue.pair(key("a"), value("1")), KeyValue.pair(key("b"), value("1"))));
        before.commit(Map.of());
        before.close();

        KeyValueStore<Bytes, byte[]> store = open("kept");
        store.delete(key("b"));

        assertEquals(List.of("batch 0", "b deleted", "a deleted", "batch 1"), changelog.stream()
                .map(record -> BatchChangelogStore.batchNumber(record.key.get()) >= 0
                        ? "batch " + BatchChangelogStore.batchNumber(record.key.get())
                        : new String(record.key.get(), StandardCharsets.UTF_8) + (record.value == null ? " deleted" : ""))
                .toList().subList(0, 4), "the deletion's batch, its key's tombstone, then the copy's tombstones ahead of it");
        assertEquals(Map.of("a", "1"), entries(store));
    }

    @Test
    void aStoreReopenedFromItsCheckpointNumbersItsBatchesOnFromTheLastOne() {
        KeyValueStore<Bytes, byte[]> store = open("kept");
        store.put(key("a"), value("1"));
        store.put(key("b"), value("1"));
        store.commit(Map.of());
        store.close();
        opened.remove(store);

        KeyValueStore<Bytes, byte[]> reopened = open("kept");
        reopened.put(key("a"), value("2"));

        assertEquals(List.of(0L, 1L, 2L), changelog.stream().map(record -> BatchChangelogStore.batchNumber(record.key.get())).toList());
        assertEquals(Map.of("a", "2", "b", "1"), restored(changelog));
    }

    @Test
    void aRestoredStoreNumbersItsBatchesAfterTheRestoredOnes() {
        KeyValueStore<Bytes, byte[]> store = open("first");
        store.put(key("a"), value("1"));
        store.put(key("b"), value("1"));

        KeyValueStore<Bytes, byte[]> restored = open("second");
        restoreInto(new ArrayList<>(changelog));
        restored.put(key("c"), value("1"));

        assertEquals(2, BatchChangelogStore.batchNumber(changelog.get(changelog.size() - 1).key.get()));
    }

    @Test
    void anUnreadableBatchOrAKeyThatIsNoBatchNumberChangesNothingOnRestore() {
        KeyValueStore<Bytes, byte[]> source = open("source");
        source.put(key("a"), value("1"));
        KeyValue<Bytes, byte[]> valid = changelog.get(0);
        byte[] truncated = Arrays.copyOf(valid.value, valid.value.length - 1);
        List<KeyValue<Bytes, byte[]>> hostile = List.of(
                KeyValue.pair(BatchChangelogStore.batchKey(7), truncated),
                KeyValue.pair(Bytes.wrap(new byte[] {(byte) 0xFF, 'x'}), valid.value),
                KeyValue.pair(BatchChangelogStore.batchKey(8), value("not a batch")),
                valid);

        KeyValueStore<Bytes, byte[]> store = open("target");
        restoreInto(hostile);

        assertEquals(Map.of("a", "1"), entries(store));
        assertNull(store.get(BatchChangelogStore.LOG), "the store's own numbers are not an entry");
    }

    private KeyValueStore<Bytes, byte[]> open(String name) {
        StateStoreContext mock = new MockProcessorContext<>(new Properties(), new TaskId(0, 0),
                stateDir.resolve(name).toFile()).getStateStoreContext();
        KeyValueStore<Bytes, byte[]> store = BatchChangelogStore.supplier(
                DeferredWriteStore.supplier(Stores.persistentKeyValueStore("entries"))).get();
        store.init(context(mock), store);
        opened.add(store);
        return store;
    }

    /** The mock's context, with a changelog that records what is logged and a restore the test drives. */
    private StateStoreContext context(StateStoreContext mock) {
        return (StateStoreContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {InternalProcessorContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "logChange" -> {
                        changelog.add(KeyValue.pair((Bytes) args[1], (byte[]) args[2]));
                        yield null;
                    }
                    case "register" -> {
                        restore = (RecordBatchingStateRestoreCallback) args[1];
                        yield null;
                    }
                    case "recordContext" -> null;
                    case "currentSystemTimeMs" -> 0L;
                    default -> {
                        Method own = StateStoreContext.class.getMethod(method.getName(), method.getParameterTypes());
                        yield own.invoke(mock, args);
                    }
                });
    }

    /** The entries a fresh store holds once it restored {@code records}. */
    private Map<String, String> restored(List<KeyValue<Bytes, byte[]>> records) {
        RecordBatchingStateRestoreCallback current = restore;
        KeyValueStore<Bytes, byte[]> fresh = open("restore-" + opened.size());
        int logged = changelog.size();
        restoreInto(records);
        restore = current;
        assertEquals(logged, changelog.size(), "a restore writes nothing to the changelog");
        return entries(fresh);
    }

    private void restoreInto(List<KeyValue<Bytes, byte[]>> records) {
        List<ConsumerRecord<byte[], byte[]>> consumed = new ArrayList<>();
        for (int offset = 0; offset < records.size(); offset++) {
            KeyValue<Bytes, byte[]> record = records.get(offset);
            consumed.add(new ConsumerRecord<>("entries-changelog", 0, offset, record.key.get(), record.value));
        }
        // In two polls, as a restore reads a partition.
        restore.restoreBatch(consumed.subList(0, consumed.size() / 2));
        restore.restoreBatch(consumed.subList(consumed.size() / 2, consumed.size()));
    }

    /** What log compaction leaves: each key's last record, in log order; with or without the tombstones. */
    private static List<KeyValue<Bytes, byte[]>> compacted(List<KeyValue<Bytes, byte[]>> log, boolean tombstones) {
        Map<Bytes, Integer> last = new HashMap<>();
        for (int i = 0; i < log.size(); i++) {
            last.put(log.get(i).key, i);
        }
        List<KeyValue<Bytes, byte[]>> left = new ArrayList<>();
        for (int i = 0; i < log.size(); i++) {
            KeyValue<Bytes, byte[]> record = log.get(i);
            if (last.get(record.key) == i && (tombstones || record.value != null)) {
                left.add(record);
            }
        }
        return left;
    }

    private static Map<String, String> entries(KeyValueStore<Bytes, byte[]> store) {
        Map<String, String> entries = new TreeMap<>();
        try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
            all.forEachRemaining(entry -> entries.put(new String(entry.key.get(), StandardCharsets.UTF_8),
                    new String(entry.value, StandardCharsets.UTF_8)));
        }
        return entries;
    }

    private static Bytes key(String key) {
        return Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}

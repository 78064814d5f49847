package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a deferred-write store holds, when it reaches RocksDB beneath, and what reads and iterations see meanwhile. */
class DeferredWriteStoreTest {

    @TempDir
    Path stateDir;
    StateStoreContext context;
    KeyValueStore<Bytes, byte[]> store;
    KeyValueStore<Bytes, byte[]> rocksDb;

    @BeforeEach
    void setUp() {
        context = new MockProcessorContext<>(new Properties(), new TaskId(0, 0), stateDir.toFile()).getStateStoreContext();
        store = open();
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private KeyValueStore<Bytes, byte[]> open() {
        KeyValueStore<Bytes, byte[]> opened = DeferredWriteStore.supplier(Stores.persistentKeyValueStore("entries")).get();
        opened.init(context, opened);
        rocksDb = ((DeferredWriteStore) opened).wrapped();
        return opened;
    }

    @Test
    void aWriteIsReadAtOnceAndReachesRocksDbWhenItsOffsetsAreCommitted() {
        store.put(key("k"), value("1"));
        store.put(key("k"), value("2"));

        assertArrayEquals(value("2"), store.get(key("k")));
        assertNull(rocksDb.get(key("k")), "nothing is written before the checkpoint");

        store.commit(Map.of());

        assertArrayEquals(value("2"), rocksDb.get(key("k")), "the latest value");
        assertArrayEquals(value("2"), store.get(key("k")));
    }

    @Test
    void aDeletionThatWaitsHidesTheStoredValueFromReadsAndIterations() {
        store.put(key("k"), value("1"));
        store.commit(Map.of());

        assertArrayEquals(value("1"), store.delete(key("k")));

        assertNull(store.get(key("k")));
        assertEquals(List.of(), keys(store.all()));
        assertArrayEquals(value("1"), rocksDb.get(key("k")), "still stored until the checkpoint");
        store.commit(Map.of());
        assertNull(rocksDb.get(key("k")));
    }

    @Test
    void iterationsMergeWhatWaitsWithWhatIsStoredInKeyOrderTheWaitingValueWinning() {
        store.put(key("a"), value("stored"));
        store.put(key("c"), value("stored"));
        store.put(key("e"), value("stored"));
        store.commit(Map.of());
        store.put(key("b"), value("waiting"));
        store.put(key("c"), value("waiting"));
        store.put(key("f"), value("waiting"));
        store.delete(key("e"));

        assertEquals(List.of("a=stored", "b=waiting", "c=waiting", "f=waiting"), entries(store.all()));
        assertEquals(List.of("f=waiting", "c=waiting", "b=waiting", "a=stored"), entries(store.reverseAll()));
        assertEquals(List.of("b=waiting", "c=waiting"), entries(store.range(key("b"), key("e"))));
        assertEquals(List.of("c=waiting", "b=waiting"), entries(store.reverseRange(key("b"), key("e"))));
        assertEquals(List.of("a=stored", "b=waiting"), entries(store.range(null, key("b"))));
        assertEquals(List.of("c=waiting", "f=waiting"), entries(store.range(key("c"), null)));
    }

    @Test
    void aPrefixScanSeesWaitingKeysWithThePrefixOnly() {
        store.put(key("user-1"), value("stored"));
        store.commit(Map.of());
        store.put(key("user-2"), value("waiting"));
        store.put(key("usex"), value("waiting"));

        assertEquals(List.of("user-1=stored", "user-2=waiting"), entries(store.prefixScan("user-", new StringSerializer())));
    }

    @Test
    void pastTheBoundAChunkOfWritesGoesToRocksDbWithoutWaitingForACheckpoint() {
        for (int i = 0; i <= DeferredWriteStore.MAX_PENDING; i++) {
            store.put(key("k" + i), value(String.valueOf(i)));
        }

        assertEquals(DeferredWriteStore.WRITE_CHUNK, keys(rocksDb.all()).size(), "one chunk written, the rest waiting");
        assertEquals(DeferredWriteStore.MAX_PENDING + 1, keys(store.all()).size());
        for (int i = 0; i <= DeferredWriteStore.MAX_PENDING; i++) {
            assertArrayEquals(value(String.valueOf(i)), store.get(key("k" + i)));
        }
        store.commit(Map.of());
        assertEquals(DeferredWriteStore.MAX_PENDING + 1, keys(rocksDb.all()).size(), "the checkpoint writes all that waits");
    }

    @Test
    void aStoreClosedWithoutACheckpointDropsWhatWaitsAndKeepsWhatWasWritten() {
        store.put(key("written"), value("1"));
        store.commit(Map.of());
        store.put(key("waiting"), value("2"));

        store.close();
        store = open();

        assertArrayEquals(value("1"), store.get(key("written")));
        assertNull(store.get(key("waiting")), "restored from the changelog, not from what waited");
    }

    private static Bytes key(String key) {
        return Bytes.wrap(key.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> keys(KeyValueIterator<Bytes, byte[]> iterator) {
        List<String> keys = new ArrayList<>();
        try (iterator) {
            iterator.forEachRemaining(entry -> keys.add(new String(entry.key.get(), StandardCharsets.UTF_8)));
        }
        return keys;
    }

    private static List<String> entries(KeyValueIterator<Bytes, byte[]> iterator) {
        List<String> entries = new ArrayList<>();
        try (iterator) {
            while (iterator.hasNext()) {
                Bytes peeked = iterator.peekNextKey();
                KeyValue<Bytes, byte[]> entry = iterator.next();
                assertEquals(peeked, entry.key, "peekNextKey names the next entry");
                entries.add(new String(entry.key.get(), StandardCharsets.UTF_8) + "=" + new String(entry.value, StandardCharsets.UTF_8));
            }
        }
        return entries;
    }
}

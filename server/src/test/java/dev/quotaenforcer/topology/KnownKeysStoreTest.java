package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a known-keys store over RocksDB answers, and which gets it answers without RocksDB. */
class KnownKeysStoreTest {

    @TempDir
    Path stateDir;
    StateStoreContext context;
    KeyValueStore<Bytes, byte[]> store;

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
        KeyValueStore<Bytes, byte[]> opened = KnownKeysStore.supplier(Stores.persistentKeyValueStore("catalog")).get();
        opened.init(context, opened);
        return opened;
    }

    private KeyValueStore<Bytes, byte[]> beneath() {
        return ((KnownKeysStore) store).wrapped();
    }

    @Test
    void aKeyPutIsReadBackAndAKeyNeverPutIsAbsent() {
        store.put(key("assigned"), value("gold"));

        assertArrayEquals(value("gold"), store.get(key("assigned")));
        assertNull(store.get(key("unknown")));
    }

    @Test
    void aKeyThatNeverWentThroughTheStoreIsAnsweredAbsentWithoutAskingRocksDb() {
        beneath().put(key("written beneath"), value("gold"));

        assertNull(store.get(key("written beneath")), "the filter answered, not RocksDB");
        assertArrayEquals(value("gold"), beneath().get(key("written beneath")));
    }

    @Test
    void everyKeyTheStoreHeldWhenOpenedIsFound() {
        store.put(key("put"), value("gold"));
        beneath().put(key("written beneath"), value("silver"));
        store.close();

        store = open();

        assertArrayEquals(value("gold"), store.get(key("put")));
        assertArrayEquals(value("silver"), store.get(key("written beneath")));
        assertNull(store.get(key("unknown")));
    }

    @Test
    void keysPutPastTheFilterCapacityAreAllFound() {
        int keys = 10 * KeyFilter.MIN_CAPACITY;
        for (int i = 0; i < keys; i += 2) {
            store.putAll(List.of(KeyValue.pair(key("key-" + i), value("plan-" + i)),
                    KeyValue.pair(key("key-" + (i + 1)), value("plan-" + (i + 1)))));
        }
        store.putIfAbsent(key("last"), value("gold"));

        for (int i = 0; i < keys; i++) {
            assertArrayEquals(value("plan-" + i), store.get(key("key-" + i)), "key-" + i);
        }
        assertArrayEquals(value("gold"), store.get(key("last")));
        assertNull(store.get(key("key-" + keys)));
    }

    @Test
    void aDeletedKeyIsAbsent() {
        store.put(key("assigned"), value("gold"));
        store.delete(key("assigned"));
        store.put(key("unassigned"), null);

        assertNull(store.get(key("assigned")));
        assertNull(store.get(key("unassigned")));
    }

    @Test
    void overATimestampedStoreItIsMarkedTimestampedSoKafkaStreamsKeepsTheValuesAsTheyAre() {
        assertInstanceOf(TimestampedBytesStore.class,
                KnownKeysStore.supplier(Stores.persistentTimestampedKeyValueStore("catalog")).get());
    }

    private static Bytes key(String text) {
        return Bytes.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

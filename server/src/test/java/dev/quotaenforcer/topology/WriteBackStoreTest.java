package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a write-back store holds, what reaches the store beneath, and when. */
class WriteBackStoreTest {

    WriteBackStore<String, Long> store;
    KeyValueStore<String, Long> beneath;

    @BeforeEach
    void setUp() {
        store = WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("s"), Serdes.String(),
                Serdes.Long()).withLoggingDisabled()).build();
        store.init(new MockProcessorContext<>().getStateStoreContext(), store);
        beneath = store.wrapped();
    }

    @Test
    void aChangeIsReadBackAtOnceAndReachesTheStoreBeneathWhenTheCommitFlushes() {
        store.put("k", 1L);
        store.put("k", 2L);

        assertEquals(2L, store.get("k"));
        assertNull(beneath.get("k"), "nothing is written before the commit");

        store.flushCache();

        assertEquals(2L, beneath.get("k"), "the latest value, once");
        assertEquals(2L, store.get("k"));
    }

    @Test
    void aKeyChangedAgainAfterItsWriteBackWaitsForTheNextCommit() {
        store.put("k", 1L);
        store.flushCache();
        store.put("k", 2L);

        assertEquals(2L, store.get("k"));
        assertEquals(1L, beneath.get("k"));

        store.flushCache();
        assertEquals(2L, beneath.get("k"));
        beneath.put("k", 7L);
        store.flushCache();
        assertEquals(7L, beneath.get("k"), "a commit with nothing changed writes nothing back");
    }

    @Test
    void aDeletionHeldHidesTheStoredValueUntilItIsWrittenBack() {
        store.put("k", 1L);
        store.flushCache();

        assertEquals(1L, store.delete("k"));
        assertNull(store.get("k"));
        assertEquals(1L, beneath.get("k"));

        store.flushCache();
        assertNull(beneath.get("k"));
        assertNull(store.get("k"), "the deletion written back is not undone by what was kept of the key");
    }

    @Test
    void aValueWrittenBackIsReadFromMemoryUntilMoreThanTheBoundFollow() {
        Long value = 1_000_000L;
        store.put("k", value);
        store.flushCache();

        assertSame(value, store.get("k"), "kept as written, not read back from the store beneath");

        for (int i = 0; i < WriteBackStore.MAX_HELD; i++) {
            store.put("other-" + i, (long) i);
        }
        store.flushCache();

        assertEquals(value, store.get("k"));
        assertNotSame(value, store.get("k"), "let go, and read from the store beneath");
        assertEquals(WriteBackStore.MAX_HELD - 1L, store.get("other-" + (WriteBackStore.MAX_HELD - 1)));
    }

    @Test
    void aHandOverWithoutACommitDropsWhatWasHeld() {
        store.put("k", 1L);
        store.flushCache();
        store.put("k", 5L);

        store.clearCache();

        assertEquals(1L, store.get("k"));
        store.flushCache();
        assertEquals(1L, beneath.get("k"));
    }

    @Test
    void theWritingThreadsIterationSeesEveryChangeAnotherThreadsTheStoreAsLastWrittenBack() throws Exception {
        store.put("a", 1L);
        store.flushCache();
        store.put("b", 2L);
        AtomicReference<List<String>> seenElsewhere = new AtomicReference<>();
        Thread query = new Thread(() -> seenElsewhere.set(keys(store)));
        query.start();
        query.join();

        assertEquals(List.of("a"), seenElsewhere.get());
        assertEquals(List.of("a", "b"), keys(store));
        assertEquals(2L, beneath.get("b"), "iterating wrote the change back");
    }

    @Test
    void aSettledValueIsWrittenThroughAndTheOthersWaitForTheCommit() {
        WriteBackStore<String, Long> negativeSettled = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("t"), Serdes.String(), Serdes.Long()).withLoggingDisabled(), v -> v < 0).build();
        negativeSettled.init(new MockProcessorContext<>().getStateStoreContext(), negativeSettled);
        KeyValueStore<String, Long> under = negativeSettled.wrapped();

        negativeSettled.put("k", 1L);
        negativeSettled.put("k", -1L);
        negativeSettled.put("other", 2L);

        assertEquals(-1L, under.get("k"), "written through, replacing what was held");
        assertEquals(-1L, negativeSettled.get("k"));
        assertNull(under.get("other"));
        negativeSettled.flushCache();
        assertEquals(-1L, under.get("k"));
        assertEquals(2L, under.get("other"));

        negativeSettled.put("other", -2L);
        assertEquals(-2L, negativeSettled.get("other"), "a settled value replaces what was kept after the write-back");
    }

    @Test
    void itWritesBackOnItsOwnOnceItHoldsMoreThanItsBound() {
        for (int i = 0; i <= WriteBackStore.MAX_HELD; i++) {
            store.put("k-" + i, (long) i);
        }

        assertEquals(WriteBackStore.MAX_HELD + 1, beneath.approximateNumEntries());
    }

    private static List<String> keys(KeyValueStore<String, Long> store) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, Long> all = store.all()) {
            all.forEachRemaining((KeyValue<String, Long> entry) -> keys.add(entry.key));
        }
        return keys;
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a write-back store holds, what reaches the store beneath, and when. */
class WriteBackStoreTest {

    WriteBackStore<String, Long> store;
    KeyValueStore<String, Long> beneath;

    @BeforeEach
    void setUp() {
        // Nothing settled: every change waits for the commit.
        store = heldUntilCommit("s");
        beneath = store.wrapped();
    }

    @AfterEach
    void closeStore() {
        store.close();
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
    void aKeyReadThenLetGoIsHeldAgainWhenChanged() {
        store.put("k", 1L);
        store.flushCache();
        assertEquals(1L, store.get("k"));
        for (int i = 0; i < WriteBackStore.MAX_HELD; i++) {
            store.put("other-" + i, (long) i);
        }
        store.flushCache();

        store.put("k", 2L);

        assertEquals(2L, store.get("k"), "the change is held, not lost with the entry let go after the read");
        assertEquals(1L, beneath.get("k"));
        store.flushCache();
        assertEquals(2L, beneath.get("k"));
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
                Stores.inMemoryKeyValueStore("t"), Serdes.String(), Serdes.Long()).withLoggingDisabled(), v -> v != null && v < 0, false).build();
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
    void aValueThatSettledAsItWasWrittenBackIsNotKeptForReadsAndTheOthersAre() {
        // As a request-id batch settles: open while it is held, sealed by the write-back's serializer.
        AtomicBoolean sealed = new AtomicBoolean();
        WriteBackStore<String, Long> sealing = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("w"), Serdes.String(), Serdes.Long()).withLoggingDisabled(),
                v -> sealed.get() && v != null && v > 100, false).build();
        sealing.init(new MockProcessorContext<>().getStateStoreContext(), sealing);
        KeyValueStore<String, Long> under = sealing.wrapped();
        sealing.put("batch", 101L);
        sealing.put("entry", 1L);
        sealed.set(true);

        sealing.flushCache();
        under.put("batch", 7L);
        under.put("entry", 8L);

        assertEquals(7L, sealing.get("batch"), "settled as it was written back: read from the store beneath");
        assertEquals(1L, sealing.get("entry"), "kept as written back: not read from the store beneath");
        sealing.close();
    }

    @Test
    void aSettledDeletionIsWrittenThrough() {
        WriteBackStore<String, Long> deletionsSettled = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("d"), Serdes.String(), Serdes.Long()).withLoggingDisabled(), v -> v == null, false).build();
        deletionsSettled.init(new MockProcessorContext<>().getStateStoreContext(), deletionsSettled);
        deletionsSettled.put("k", 1L);
        deletionsSettled.flushCache();

        assertEquals(1L, deletionsSettled.delete("k"));

        assertNull(deletionsSettled.wrapped().get("k"), "deleted beneath before the commit");
        assertNull(deletionsSettled.get("k"));
    }

    @Test
    void theFirstChangeAfterEachCommitIsWrittenAtOnceAndTheRestWaitForTheCommit() {
        WriteBackStore<String, Long> firstAtOnce = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("f"), Serdes.String(), Serdes.Long()).withLoggingDisabled()).build();
        firstAtOnce.init(new MockProcessorContext<>().getStateStoreContext(), firstAtOnce);
        KeyValueStore<String, Long> under = firstAtOnce.wrapped();

        firstAtOnce.put("a", 1L);
        firstAtOnce.put("b", 2L);
        firstAtOnce.put("a", 3L);

        assertEquals(1L, under.get("a"), "the first change, at once");
        assertNull(under.get("b"), "held for the commit");
        assertEquals(3L, firstAtOnce.get("a"));
        assertEquals(2L, firstAtOnce.get("b"));

        firstAtOnce.flushCache();
        assertEquals(3L, under.get("a"));
        assertEquals(2L, under.get("b"));

        firstAtOnce.delete("b");
        firstAtOnce.put("a", 4L);
        assertNull(under.get("b"), "the first change after the next commit, a deletion, at once");
        assertEquals(3L, under.get("a"));
        assertNull(firstAtOnce.get("b"));
        assertEquals(4L, firstAtOnce.get("a"));
    }

    @Test
    void theFirstChangeAfterAHandOverIsWrittenAtOnce() {
        WriteBackStore<String, Long> firstAtOnce = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("h"), Serdes.String(), Serdes.Long()).withLoggingDisabled()).build();
        firstAtOnce.init(new MockProcessorContext<>().getStateStoreContext(), firstAtOnce);
        firstAtOnce.put("a", 1L);
        firstAtOnce.put("b", 2L);

        firstAtOnce.clearCache();
        firstAtOnce.put("c", 3L);

        assertNull(firstAtOnce.get("b"), "dropped with the hand-over");
        assertEquals(3L, firstAtOnce.wrapped().get("c"), "the first change after it, at once");
    }

    @Test
    void whatTheFirstChangesKeepStaysWithinTheBoundWhenNothingElseChanges() {
        WriteBackStore<String, Long> firstAtOnce = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("q"), Serdes.String(), Serdes.Long()).withLoggingDisabled()).build();
        firstAtOnce.init(new MockProcessorContext<>().getStateStoreContext(), firstAtOnce);
        Long first = 1_000_000L;
        firstAtOnce.put("k-0", first);
        firstAtOnce.flushCache();
        for (int i = 1; i <= WriteBackStore.MAX_HELD; i++) {
            firstAtOnce.put("k-" + i, (long) i);
            firstAtOnce.flushCache();
        }

        assertEquals(first, firstAtOnce.get("k-0"));
        assertNotSame(first, firstAtOnce.get("k-0"), "let go, and read from the store beneath");
    }

    @Test
    void aCommitWritesBackWhatEveryStoreOfItsThreadHoldsAndNoOtherThreads() throws Exception {
        WriteBackStore<String, Long> otherTask = heldUntilCommit("other-task");
        WriteBackStore<String, Long> otherThread = heldUntilCommit("other-thread");
        store.put("k", 1L);
        otherTask.put("j", 2L);
        Thread writer = new Thread(() -> otherThread.put("x", 3L));
        writer.start();
        writer.join();

        store.flushCache();

        assertEquals(1L, beneath.get("k"));
        assertEquals(2L, otherTask.wrapped().get("j"), "written back in the same commit, before its own task's turn");
        assertNull(otherThread.wrapped().get("x"), "another thread's store waits for that thread's commit");
        otherTask.close();
        otherThread.close();
    }

    @Test
    void itWritesBackOnItsOwnOnceItHoldsMoreThanItsBound() {
        for (int i = 0; i <= WriteBackStore.MAX_HELD; i++) {
            store.put("k-" + i, (long) i);
        }

        assertEquals(WriteBackStore.MAX_HELD + 1, beneath.approximateNumEntries());
    }

    @Test
    void aSlotReadsItsKeyFromTheStoreBeneathOnceAndItsChangesWaitForTheCommit() {
        beneath.put("k", 1L);
        WriteBackStore.Slot<String> slot = store.slot("k");

        assertEquals(1L, store.value(slot, key -> true));
        beneath.put("k", 9L);
        assertEquals(1L, store.value(slot, key -> true), "read once");

        store.put(slot, 2L);
        assertEquals(2L, store.get("k"));
        assertEquals(9L, beneath.get("k"));
        store.flushCache();
        assertEquals(2L, beneath.get("k"));
        assertSame(slot, store.slot("k"), "kept after the write-back");
    }

    @Test
    void aSlotWhoseKeyCannotBeStoredIsNotReadFromTheStoreBeneath() {
        beneath.put("k", 1L);

        assertNull(store.value(store.slot("k"), key -> false));
    }

    @Test
    void aSlotReadThenLetGoWithItsNoteIsHeldAgainWhenWritten() {
        WriteBackStore.Slot<String> slot = store.slot("k");
        slot.note = "noted";
        assertNull(store.value(slot, key -> true));
        for (int i = 0; i < 2 * WriteBackStore.MAX_HELD; i++) {
            store.slot("other-" + i);
        }

        WriteBackStore.Slot<String> again = store.slot("k");
        assertNotSame(slot, again, "let go: nothing of it waited for a write-back");
        assertNull(again.note);

        store.put(slot, 5L);
        assertEquals(5L, store.get("k"));
        assertEquals(5L, store.value(again, key -> true), "written into the slot held now");
        store.flushCache();
        assertEquals(5L, beneath.get("k"));
    }

    @Test
    void aSlotLetGoReadsItsKeysValueNowNotTheOneItLastHeld() {
        WriteBackStore.Slot<String> slot = store.slot("k");
        store.put(slot, 1L);
        assertEquals(1L, store.current(slot));
        store.flushCache();
        for (int i = 0; i < 2 * WriteBackStore.MAX_HELD; i++) {
            store.slot("other-" + i);
        }

        store.put(store.slot("k"), 2L);

        assertEquals(2L, store.current(slot), "the key's slot held now has the value");
        store.put("k", null);
        assertNull(store.current(slot));
    }

    @Test
    void aSlotChangedIsNotLetGoBeforeItsWriteBack() {
        WriteBackStore.Slot<String> slot = store.slot("k");
        store.put(slot, 1L);
        for (int i = 0; i < 2 * WriteBackStore.MAX_HELD; i++) {
            store.slot("other-" + i);
        }

        assertSame(slot, store.slot("k"));
        assertEquals(1L, store.get("k"));
        assertNull(beneath.get("k"));
        store.flushCache();
        assertEquals(1L, beneath.get("k"));
    }

    @Test
    void aKeyWrittenThroughLetsItsSlotGoAndTheSlotWrittenIsHeldAgain() {
        WriteBackStore<String, Long> negativeSettled = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("n"), Serdes.String(), Serdes.Long()).withLoggingDisabled(), v -> v != null && v < 0, false).build();
        negativeSettled.init(new MockProcessorContext<>().getStateStoreContext(), negativeSettled);
        WriteBackStore.Slot<String> slot = negativeSettled.slot("k");
        negativeSettled.put(slot, 1L);

        negativeSettled.put("k", -1L);
        assertNotSame(slot, negativeSettled.slot("k"));
        negativeSettled.put(slot, 2L);

        assertEquals(2L, negativeSettled.get("k"));
        assertEquals(-1L, negativeSettled.wrapped().get("k"));
        negativeSettled.flushCache();
        assertEquals(2L, negativeSettled.wrapped().get("k"));
        negativeSettled.close();
    }

    @Test
    void aPackedStoreHoldsEachValueAsItsPackingMakesItAndReadsAndWritesBackTheValueItself() {
        WriteBackStore.Packing<Long> inArrays = new WriteBackStore.Packing<>() {
            @Override
            public Object pack(Long value) {
                return new long[] {value};
            }

            @Override
            public Long unpack(Object packed) {
                return Long.valueOf(((long[]) packed)[0]);
            }
        };
        WriteBackStore<String, Long> packed = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("p"), Serdes.String(), Serdes.Long()).withLoggingDisabled(), inArrays).build();
        packed.init(new MockProcessorContext<>().getStateStoreContext(), packed);
        try {
            Long put = 1_000_000L;
            packed.put("k", put);
            Long read = packed.get("k");
            assertEquals(put, read);
            assertNotSame(put, read, "made again from what the slot holds");

            packed.wrapped().put("stored", 2_000_000L);
            WriteBackStore.Slot<String> slot = packed.slot("stored");
            assertEquals(2_000_000L, packed.value(slot, key -> true));
            assertEquals(2_000_000L, packed.value(slot, key -> true), "held once read");
            packed.put(slot, 3_000_000L);
            packed.delete("k");
            packed.flushCache();

            assertEquals(3_000_000L, packed.wrapped().get("stored"));
            assertNull(packed.wrapped().get("k"));
            assertNull(packed.get("k"));
            assertEquals(3_000_000L, packed.current(slot));
        } finally {
            packed.close();
        }
    }

    @Test
    void aStoreThatIsNoWriteBackStoreIsRefusedByName() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> WriteBackStore.of(beneath));

        assertTrue(refused.getMessage().contains("store s "), refused.getMessage());
        assertSame(store, WriteBackStore.of(store));
    }

    /** A store of its own, every change held until a commit: as another task's store would be. */
    private static WriteBackStore<String, Long> heldUntilCommit(String name) {
        WriteBackStore<String, Long> held = WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
                Serdes.String(), Serdes.Long()).withLoggingDisabled(), value -> false, false).build();
        held.init(new MockProcessorContext<>().getStateStoreContext(), held);
        return held;
    }

    private static List<String> keys(KeyValueStore<String, Long> store) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, Long> all = store.all()) {
            all.forEachRemaining((KeyValue<String, Long> entry) -> keys.add(entry.key));
        }
        return keys;
    }
}

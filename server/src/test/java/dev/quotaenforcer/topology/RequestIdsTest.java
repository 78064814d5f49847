package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.engine.DecisionCodec;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.RequestEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Remembered request ids: one batch per commit, read back on restart, deleted once out of the window. */
class RequestIdsTest {

    static final long WINDOW = 60_000;
    static final long NOON = Instant.parse("2026-12-01T12:00:00Z").toEpochMilli();

    MockProcessorContext<String, String> context;
    WriteBackStore<Long, RequestIdBatch> batches;
    WindowStore<String, byte[]> commands;

    @BeforeEach
    void setUp() {
        context = new MockProcessorContext<>();
        batches = WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(RequestIds.STORE),
                Serdes.Long(), RequestIdBatch.SERDE).withLoggingDisabled(), RequestIds::settled, true).build();
        batches.init(context.getStateStoreContext(), batches);
        commands = Stores.windowStoreBuilder(Stores.inMemoryWindowStore(RequestIds.COMMANDS_STORE, Duration.ofDays(7),
                Duration.ofMillis(1), false), Serdes.String(), Serdes.ByteArray()).withLoggingDisabled().build();
        commands.init(context.getStateStoreContext(), commands);
    }

    @Test
    void theFirstIdAfterACommitIsWrittenAtOnceAndTheRestUntilTheNextCommitGoIntoOneBatch() {
        RequestIds ids = new RequestIds(batches, commands, WINDOW);
        for (int i = 0; i < 100; i++) {
            ids.remember(key("r-" + i), allowed("r-" + i), NOON + i);
        }
        assertEquals(1, batches.wrapped().approximateNumEntries(), "the first, at once");
        batches.flushCache();
        for (int i = 100; i < 150; i++) {
            ids.remember(key("r-" + i), allowed("r-" + i), NOON + i);
        }
        batches.flushCache();

        assertEquals(4, batches.wrapped().approximateNumEntries());
        assertEquals(List.of(1L, 99L, 1L, 49L), LongStream.range(0, 4).mapToObj(batch -> QuotaTopology.requestIdsIn(
                RequestIdBatch.SERDE.serializer().serialize(null, batches.wrapped().get(batch)))).toList());
    }

    @Test
    void aFullBatchIsWrittenToTheStoreBeneathBeforeTheCommit() {
        RequestIds ids = new RequestIds(batches, commands, WINDOW);
        int remembered = 0;
        while (batches.wrapped().get(0L) == null) {
            ids.remember(key("r-" + remembered), allowed("r-" + remembered), NOON + remembered);
            remembered++;
        }
        ids.remember(key("r-" + remembered), allowed("r-" + remembered), NOON + remembered);

        assertNull(batches.wrapped().get(1L), "the next batch waits for the commit");
        long inFirst = QuotaTopology.requestIdsIn(RequestIdBatch.SERDE.serializer().serialize(null, batches.wrapped().get(0L)));
        assertEquals(remembered, inFirst);
        batches.flushCache();
        assertEquals(1, QuotaTopology.requestIdsIn(RequestIdBatch.SERDE.serializer().serialize(null, batches.wrapped().get(1L))));
        assertNotNull(ids.original(key("r-0"), request("r-0"), NOON + remembered, plan -> null));
    }

    @Test
    void aBatchWrittenBackAsSoonAsItIsPutStillTakesItsFirstId() {
        // Writing a batch back seals it: a store that writes every put through seals each batch at once.
        WriteBackStore<Long, RequestIdBatch> writtenThrough = WriteBackStore.builder(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(RequestIds.STORE), Serdes.Long(), RequestIdBatch.SERDE).withLoggingDisabled(),
                (RequestIdBatch batch) -> true, false).build();
        writtenThrough.init(context.getStateStoreContext(), writtenThrough);
        RequestIds ids = new RequestIds(writtenThrough, commands, WINDOW);

        for (int i = 0; i < 3; i++) {
            ids.remember(key("r-" + i), allowed("r-" + i), NOON + i);
        }

        for (long batch = 0; batch < 3; batch++) {
            assertEquals(1, QuotaTopology.requestIdsIn(RequestIdBatch.SERDE.serializer().serialize(null,
                    writtenThrough.wrapped().get(batch))));
        }
        assertNotNull(ids.original(key("r-2"), request("r-2"), NOON + 3, plan -> null));
    }

    @Test
    void idsRememberedBeforeARestartAreReadBackFromTheBatches() {
        RequestIds before = new RequestIds(batches, commands, WINDOW);
        before.remember(key("r-1"), allowed("r-1"), NOON);
        before.remember(key("r-2"), allowed("r-2"), NOON + 10);
        batches.flushCache();

        RequestIds after = new RequestIds(batches, commands, WINDOW);

        Decision original = after.original(key("r-1"), request("r-1"), NOON + 1_000, plan -> null);
        assertNotNull(original);
        assertEquals("r-1", original.requestId());
        assertNull(after.original(key("r-3"), request("r-3"), NOON + 1_000, plan -> null));
        after.remember(key("r-3"), allowed("r-3"), NOON + 20);
        batches.flushCache();
        assertEquals(3, batches.wrapped().approximateNumEntries(), "a batch read back takes no more ids");
    }

    @Test
    void anIdIsForgottenAndItsBatchDeletedOnceAWindowHasPassed() {
        RequestIds ids = new RequestIds(batches, commands, WINDOW);
        ids.remember(key("r-old"), allowed("r-old"), NOON);
        batches.flushCache();
        ids.remember(key("r-new"), allowed("r-new"), NOON + WINDOW - 1);
        batches.flushCache();
        assertNotNull(ids.original(key("r-old"), request("r-old"), NOON + WINDOW - 1, plan -> null));

        ids.remember(key("r-newer"), allowed("r-newer"), NOON + WINDOW + 1);
        batches.flushCache();

        assertNull(ids.original(key("r-old"), request("r-old"), NOON + WINDOW + 1, plan -> null));
        assertNotNull(ids.original(key("r-new"), request("r-new"), NOON + WINDOW + 1, plan -> null));
        assertNull(batches.wrapped().get(0L), "the batch of r-old alone is deleted");
        assertEquals(2, batches.wrapped().approximateNumEntries());
    }

    @Test
    void afterAPauseLongerThanTheWindowItsIdsAreForgottenAFewPerIdAndNoneIsAnsweredMeanwhile() {
        RequestIds ids = new RequestIds(batches, commands, WINDOW);
        for (int i = 0; i < 100; i++) {
            ids.remember(key("r-" + i), allowed("r-" + i), NOON + i);
        }
        batches.flushCache();
        long resumed = NOON + 3 * WINDOW;

        ids.remember(key("r-resumed"), allowed("r-resumed"), resumed);

        assertEquals(101 - RequestIds.MOST_FORGOTTEN_PER_ID, ids.heldIds(), "a few forgotten, not all at once");
        assertNull(ids.original(key("r-99"), request("r-99"), resumed, plan -> null), "past the window though still held");
        int after = 100 / (RequestIds.MOST_FORGOTTEN_PER_ID - 1) + 1;
        for (int i = 1; i < after; i++) {
            ids.remember(key("r-next-" + i), allowed("r-next-" + i), resumed + i);
        }
        assertEquals(after, ids.heldIds(), "the ids after the pause alone");
        assertNotNull(ids.original(key("r-resumed"), request("r-resumed"), resumed + after, plan -> null));
        batches.flushCache();
        assertNull(batches.wrapped().get(0L), "the batch of the ids before the pause is deleted");
    }

    @Test
    void aRestartForgetsEveryIdPastTheWindowAtOnce() {
        RequestIds ids = new RequestIds(batches, commands, WINDOW);
        for (int i = 0; i < 100; i++) {
            ids.remember(key("r-" + i), allowed("r-" + i), NOON + i);
        }
        ids.remember(key("r-late"), allowed("r-late"), NOON + 3 * WINDOW);
        batches.flushCache();

        RequestIds restarted = new RequestIds(batches, commands, WINDOW);

        assertEquals(1, restarted.heldIds());
    }

    @Test
    void idsForgottenBeforeTheirBatchIsWrittenReachTheStoreIntactAcrossTheIndexsChunks() {
        // A window far shorter than the commit interval: the index forgets ids, and lets go of the chunks that
        // held them, before the batches taking those ids are written back.
        long window = 5;
        RequestIds ids = new RequestIds(batches, commands, window);
        long appended = 0;
        int remembered = 0;
        while (appended < 3L * RequestIdIndex.CHUNK_BYTES) {
            Decision decision = allowed("r-" + remembered);
            ids.remember(key("r-" + remembered), decision, NOON + remembered);
            appended += RequestIdIndex.entryBytes(key("r-" + remembered), DecisionCodec.encode(decision));
            remembered++;
        }
        batches.flushCache();

        Set<Integer> stored = new HashSet<>();
        try (KeyValueIterator<Long, RequestIdBatch> all = batches.wrapped().all()) {
            while (all.hasNext()) {
                all.next().value.forEach((id, time, decision) -> {
                    int number = Integer.parseInt(id.substring(2));
                    assertEquals(NOON + number, time, id);
                    assertArrayEquals(DecisionCodec.encode(allowed("r-" + number)), decision, id);
                    assertTrue(stored.add(number), id + " once");
                });
            }
        }
        for (int number = remembered - 1; number >= remembered - window; number--) {
            assertTrue(stored.contains(number), "r-" + number + " is within the window");
        }
    }

    @Test
    void anUnreadableBatchInTheStoreCostsItsOwnIdsOnly() {
        RequestIds before = new RequestIds(batches, commands, WINDOW);
        before.remember(key("r-1"), allowed("r-1"), NOON);
        batches.flushCache();
        batches.wrapped().put(7L, RequestIdBatch.SERDE.deserializer().deserialize(null, new byte[] {0, 0, 0, 99, 'x'}));

        RequestIds after = new RequestIds(batches, commands, WINDOW);

        assertNotNull(after.original(key("r-1"), request("r-1"), NOON + 1, plan -> null));
        after.remember(key("r-2"), allowed("r-2"), NOON + 2);
        batches.flushCache();
        assertNotNull(batches.wrapped().get(8L), "new ids go into a batch numbered after every stored one");
    }

    @Test
    void aRequestsKeyIsTheUtf8OfItsIdWhateverItsCharacters() {
        List<String> texts = List.of("", "k", "r-123", "ü", "key-é", "日本", "\uD83D\uDE00", "\uD800", "a\u007Fb", "a\u0080b",
                "x".repeat(9), "x".repeat(10), "x".repeat(99), "x".repeat(100), "x".repeat(1000));
        for (String apiKey : texts) {
            for (String requestId : texts) {
                assertArrayEquals(RequestIds.id(apiKey, requestId).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        RequestIds.requestKey(apiKey, requestId), () -> apiKey + " / " + requestId);
            }
        }
    }

    private static Decision allowed(String requestId) {
        return new Decision(requestId, "k-1", "free", true, Reason.OK, "per-second", 10, 9, 1, 0, 0,
                Instant.ofEpochMilli(NOON), Map.of());
    }

    private static RequestEvent request(String requestId) {
        return new RequestEvent(requestId, "k-1", 1, NOON, null);
    }

    private static byte[] key(String id) {
        return id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}

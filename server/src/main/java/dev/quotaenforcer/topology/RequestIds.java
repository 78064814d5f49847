package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.DecisionCodec;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.plan.Plan;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency keys a task has seen: each decided request's decision ({@link DecisionCodec}) for
 * the dedup window, by API key and request id, and each applied admin command's id for
 * {@link #COMMAND_RETENTION}, in changelogged stores committed with the key states. A request
 * re-sent within the window is answered with the original decision and counted nothing; a command
 * re-sent is not applied again.
 *
 * <p>Nearly every request id is new and none coalesces, so ids are not a store record each: they are
 * looked up in memory and written in batches ({@link RequestIdBatch}), one changelog record per task
 * and commit, into a RocksDB store that writes back at commit ({@link WriteBackStore}), so the
 * batches' bytes stay off the heap and only the lookup index ({@link RequestIdIndex}) is on it; a full
 * batch is written at once, and one whose ids have all left the window is deleted. When the task
 * starts, the ids are read back from the batches. Commands are rare and stay in a window store,
 * filed by the broker's record timestamp.
 */
final class RequestIds {

    /** The per-task store of batches of remembered requests' ids and decisions, by batch number. */
    static final String STORE = "request-id-batches";
    /** The per-task store of applied commands' ids. */
    static final String COMMANDS_STORE = "command-ids";
    /** How long an applied command's id is remembered. */
    static final Duration COMMAND_RETENTION = Duration.ofDays(7);
    private static final byte[] APPLIED = {};
    /**
     * The most ids, and batches, that remembering one id forgets. After a pause in the task's traffic the
     * window moves on by the whole pause with the next id, and forgetting every id it passed in that one call
     * (a table probe each, most of them cache misses) held the stream thread about as long as remembering
     * them had taken, all at once. A few per id forget the backlog within the ids that follow; an id past the
     * window is not answered meanwhile ({@link #original} checks its time), and its batch goes with the ids.
     */
    static final int MOST_FORGOTTEN_PER_ID = 8;
    private static final Logger LOG = LoggerFactory.getLogger(RequestIds.class);

    /** A batch in the store other than the open one: its number and the newest time of its ids. */
    private record Filed(long number, long newest) {
    }

    private final KeyValueStore<Long, RequestIdBatch> batches;
    private final WindowStore<String, byte[]> commands;
    private final long windowMs;
    /** Ids in the order remembered, which is their time order but for records held back upstream. */
    private final RequestIdIndex remembered = new RequestIdIndex();
    /** Batches other than the open one, in number order, to delete once their newest id leaves the window. */
    private final ArrayDeque<Filed> filed = new ArrayDeque<>();
    private RequestIdBatch open;
    private long openNumber;
    private long nextNumber;
    /** The newest record time remembered: what is a window older is forgotten. */
    private long newest = Long.MIN_VALUE;

    /**
     * Reads the remembered ids back from the batches in the store.
     *
     * @param windowMs how long a decided request's id is remembered; 0 remembers none
     */
    RequestIds(KeyValueStore<Long, RequestIdBatch> batches, WindowStore<String, byte[]> commands, long windowMs) {
        this.batches = batches;
        this.commands = commands;
        this.windowMs = windowMs;
        try (KeyValueIterator<Long, RequestIdBatch> all = batches.all()) {
            while (all.hasNext()) {
                KeyValue<Long, RequestIdBatch> batch = all.next();
                long[] batchNewest = {Long.MIN_VALUE};
                try {
                    batch.value.forEach((id, time, decision) -> {
                        hold(id.getBytes(StandardCharsets.UTF_8), time, decision);
                        batchNewest[0] = Math.max(batchNewest[0], time);
                    });
                } catch (IllegalArgumentException e) {
                    // Only a bug or a write to the changelog from outside can cause this; the task goes on
                    // with what it could read, and a retry of a lost id is counted again.
                    LOG.error("Reading the rest of unreadable request id batch {}: {}", batch.key, e.getMessage());
                }
                filed.add(new Filed(batch.key, batchNewest[0]));
                nextNumber = Math.max(nextNumber, batch.key + 1);
            }
        }
        forgetOutsideWindow(Integer.MAX_VALUE);
    }

    /** The stores, the batches' changelog created with {@code batchChangelogConfig} ({@link BatchChangelogConfig}). */
    static Set<StoreBuilder<?>> storeBuilders(Map<String, String> batchChangelogConfig) {
        return Set.of(WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.Long(),
                        RequestIdBatch.SERDE).withLoggingEnabled(batchChangelogConfig), RequestIds::settled, true),
                Stores.windowStoreBuilder(Stores.inMemoryWindowStore(COMMANDS_STORE, COMMAND_RETENTION, Duration.ofMillis(1),
                        false), Serdes.String(), Serdes.ByteArray()).withCachingEnabled());
    }

    /**
     * Whether the batch store writes a change of a batch at once: a full batch never changes again, and a
     * deleted one (null) never comes back. Written through, their bytes go to the changelog while the task
     * works instead of all at once at the commit, which under at-least-once comes every 30 s. The store also
     * writes the first change after each commit at once, so under exactly-once its changelog partition joins
     * the transaction while the task works rather than in the commit, whose producer flush would wait for
     * the broker to add it (at 5k requests/s the flush took 0.8 ms less per commit, 2.6 against 3.4 ms).
     */
    static boolean settled(RequestIdBatch batch) {
        return batch == null || batch.sealed();
    }

    /**
     * The decision of the request with this id decided within the window before {@code now}, else null.
     *
     * @param id    the request's {@link #requestKey}
     * @param plans the plans in force by id, which its headers are rebuilt from
     */
    Decision original(byte[] id, RequestEvent request, long now, Function<String, Plan> plans) {
        RequestIdIndex.Remembered entry = windowMs == 0 ? null : remembered.get(id);
        if (entry == null || Math.abs(now - entry.time()) > windowMs || entry.time() <= newest - windowMs) {
            return null;
        }
        return DecisionCodec.decode(entry.decision(), request.requestId(), request.apiKey(), plans);
    }

    /**
     * Remembers a request's decision, made at record time {@code now}; one already a window older than
     * the newest remembered (a record held back upstream) is not, as its window has passed.
     */
    void remember(byte[] id, Decision decision, long now) {
        if (windowMs == 0 || now <= Math.max(newest, now) - windowMs) {
            return;
        }
        byte[] encoded = DecisionCodec.encode(decision);
        hold(id, now, encoded);
        // The open batch takes the entry as the index wrote it, unless it is sealed or the index began a new
        // chunk for it.
        byte[] log = remembered.lastEntryBytes();
        int at = remembered.lastEntryAt();
        boolean opened = open == null || !open.continuesAt(log, at);
        if (opened) {
            if (open != null) {
                filed.add(new Filed(openNumber, open.newest()));
            }
            open = new RequestIdBatch(log, at);
            openNumber = nextNumber++;
        }
        open.take(remembered.lastEntryEnd(), now);
        if (opened || open.sealed()) {
            // Put once opened, with its first id: the store holds the batch itself until its write-back, which
            // seals it, so a write-back before the first id would leave a sealed batch to add it to. Put again
            // once full: the store writes a sealed batch through at once (see storeBuilders).
            batches.put(openNumber, open);
        }
        forgetOutsideWindow(MOST_FORGOTTEN_PER_ID);
    }

    private void hold(byte[] id, long time, byte[] decision) {
        remembered.put(id, time, decision);
        newest = Math.max(newest, time);
    }

    /**
     * Forgets up to {@code most} of the ids a window older than the newest, and deletes up to {@code most} of
     * the batches that held only such ids.
     */
    private void forgetOutsideWindow(int most) {
        long bound = newest - windowMs;
        for (int forgotten = 0; forgotten < most && !remembered.isEmpty() && remembered.oldestTime() <= bound; forgotten++) {
            remembered.forgetOldest();
        }
        for (int deleted = 0; deleted < most && !filed.isEmpty() && filed.peekFirst().newest() <= bound; deleted++) {
            // A put of null deletes without reading the old batch back first, as delete would.
            batches.put(filed.pollFirst().number(), null);
        }
    }

    /** How many ids the index holds: those past the window that are not forgotten yet among them. */
    int heldIds() {
        return remembered.size();
    }

    /** When the command with this id was applied to the key, within the retention before {@code now}; else null. */
    Long commandApplied(String apiKey, String commandId, long now) {
        long retentionMs = COMMAND_RETENTION.toMillis();
        // Either side of now: records of the task's inputs interleave.
        try (WindowStoreIterator<byte[]> entries = commands.fetch(id(apiKey, commandId), now - retentionMs, now + retentionMs)) {
            return entries.hasNext() ? entries.next().key : null;
        }
    }

    void rememberCommand(String apiKey, String commandId, long now) {
        commands.put(id(apiKey, commandId), APPLIED, now);
    }

    /** A request's key in the index and its batches: the UTF-8 bytes of its {@link #id}, made once per request. */
    static byte[] requestKey(String apiKey, String requestId) {
        int keyChars = apiKey.length();
        int digits = 1;
        for (int n = keyChars; n >= 10; n /= 10) {
            digits++;
        }
        // Written straight into the array when both are ASCII, as nearly every API key and request id is:
        // without the text of the id and its encoding, two arrays less per decision.
        byte[] key = new byte[digits + 1 + keyChars + requestId.length()];
        for (int n = keyChars, at = digits - 1; at >= 0; n /= 10, at--) {
            key[at] = (byte) ('0' + n % 10);
        }
        key[digits] = ':';
        if (!copyAscii(apiKey, key, digits + 1) || !copyAscii(requestId, key, digits + 1 + keyChars)) {
            return id(apiKey, requestId).getBytes(StandardCharsets.UTF_8);
        }
        return key;
    }

    /** Copies {@code text} into {@code to} from {@code at}, if it is all ASCII; returns whether it was. */
    private static boolean copyAscii(String text, byte[] to, int at) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x80) {
                return false;
            }
            to[at + i] = (byte) c;
        }
        return true;
    }

    /**
     * A request's or command's store key, {@code <length of the API key>:<API key><its id>}: unambiguous
     * whatever the ids hold.
     */
    static String id(String apiKey, String requestOrCommandId) {
        return apiKey.length() + ":" + apiKey + requestOrCommandId;
    }
}

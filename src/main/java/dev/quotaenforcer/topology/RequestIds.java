package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.DecisionCodec;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.plan.Plan;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The idempotency keys a task has seen: each decided request's decision ({@link DecisionCodec}) for
 * the dedup window, by API key and request id, and each applied admin command's id for
 * {@link #COMMAND_RETENTION}, in a changelogged store committed with the key states. A request re-sent within the window is answered
 * with the original decision and counted nothing; a command re-sent is not applied again.
 *
 * <p>Entries are filed under time buckets as wide as their retention, so a lookup reads two buckets
 * and forgetting reads only what it deletes. Times are the broker's record timestamps.
 */
final class RequestIds {

    /** The per-task store of remembered request and command ids. */
    static final String STORE = "request-ids";
    /** How long an applied command's id is remembered. */
    static final Duration COMMAND_RETENTION = Duration.ofDays(7);

    private static final char REQUEST = 'r';
    private static final char COMMAND = 'c';

    private final KeyValueStore<String, byte[]> store;
    private final long windowMs;

    /** @param windowMs how long a decided request's id is remembered; 0 remembers none */
    RequestIds(KeyValueStore<String, byte[]> store, long windowMs) {
        this.store = store;
        this.windowMs = windowMs;
    }

    static StoreBuilder<KeyValueStore<String, byte[]>> storeBuilder() {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.ByteArray())
                .withCachingEnabled();
    }

    /**
     * The decision of the request with this id decided within the window before {@code now}, else null.
     *
     * @param plans the plans in force by id, which its headers are rebuilt from
     */
    Decision original(String apiKey, String requestId, long now, Function<String, Plan> plans) {
        if (windowMs == 0) {
            return null;
        }
        byte[] entry = find(REQUEST, windowMs, apiKey, requestId, now);
        return entry == null ? null
                : DecisionCodec.decode(Arrays.copyOfRange(entry, Long.BYTES, entry.length), requestId, apiKey, plans);
    }

    /** Remembers a request's decision, made at record time {@code now}. */
    void remember(Decision decision, long now) {
        if (windowMs > 0) {
            byte[] compact = DecisionCodec.encode(decision);
            store.put(key(REQUEST, windowMs, decision.apiKey(), decision.requestId(), now),
                    ByteBuffer.allocate(Long.BYTES + compact.length).putLong(now).put(compact).array());
        }
    }

    /** When the command with this id was applied to the key, within the retention before {@code now}; else null. */
    Long commandApplied(String apiKey, String commandId, long now) {
        byte[] entry = find(COMMAND, COMMAND_RETENTION.toMillis(), apiKey, commandId, now);
        return entry == null ? null : ByteBuffer.wrap(entry).getLong();
    }

    void rememberCommand(String apiKey, String commandId, long now) {
        store.put(key(COMMAND, COMMAND_RETENTION.toMillis(), apiKey, commandId, now),
                ByteBuffer.allocate(Long.BYTES).putLong(now).array());
    }

    /** Deletes every entry past its retention by {@code now}: whole buckets, the only entries read. */
    void forget(long now) {
        forget(REQUEST, windowMs, now);
        forget(COMMAND, COMMAND_RETENTION.toMillis(), now);
    }

    private void forget(char kind, long retentionMs, long now) {
        if (retentionMs == 0) {
            return;
        }
        String firstKept = prefix(kind, retentionMs, now - retentionMs);
        List<String> expired = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> entries = store.range(String.valueOf(kind), firstKept)) {
            while (entries.hasNext()) {
                KeyValue<String, byte[]> entry = entries.next();
                if (entry.key.compareTo(firstKept) < 0) {
                    expired.add(entry.key);
                }
            }
        }
        expired.forEach(store::delete);
    }

    private byte[] find(char kind, long retentionMs, String apiKey, String id, long now) {
        for (long at : new long[] {now, now - retentionMs}) {
            byte[] entry = store.get(key(kind, retentionMs, apiKey, id, at));
            if (entry != null && now - ByteBuffer.wrap(entry).getLong() <= retentionMs) {
                return entry;
            }
        }
        return null;
    }

    /** {@code <kind><bucket><length of the API key>:<API key><id>}: unambiguous whatever the ids hold. */
    private static String key(char kind, long retentionMs, String apiKey, String id, long time) {
        return prefix(kind, retentionMs, time) + apiKey.length() + ':' + apiKey + id;
    }

    private static String prefix(char kind, long retentionMs, long time) {
        return kind + HourlyUsageStore.hourPrefix(Math.floorDiv(time, retentionMs) * retentionMs);
    }
}

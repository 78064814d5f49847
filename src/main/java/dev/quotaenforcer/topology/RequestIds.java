package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.DecisionCodec;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.plan.Plan;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * The idempotency keys a task has seen: each decided request's decision ({@link DecisionCodec}) for
 * the dedup window, by API key and request id, and each applied admin command's id for
 * {@link #COMMAND_RETENTION}, in changelogged stores committed with the key states. A request
 * re-sent within the window is answered with the original decision and counted nothing; a command
 * re-sent is not applied again.
 *
 * <p>Both are window stores, filed by the broker's record timestamp: Kafka Streams drops whole
 * expired segments and the changelog expires by retention, so forgetting costs neither a read nor a
 * tombstone per request.
 */
final class RequestIds {

    /** The per-task store of remembered requests' decisions. */
    static final String STORE = "request-ids";
    /** The per-task store of applied commands' ids. */
    static final String COMMANDS_STORE = "command-ids";
    /** How long an applied command's id is remembered. */
    static final Duration COMMAND_RETENTION = Duration.ofDays(7);
    private static final byte[] APPLIED = {};

    private final WindowStore<String, byte[]> requests;
    private final WindowStore<String, byte[]> commands;
    private final long windowMs;

    /** @param windowMs how long a decided request's id is remembered; 0 remembers none */
    RequestIds(WindowStore<String, byte[]> requests, WindowStore<String, byte[]> commands, long windowMs) {
        this.requests = requests;
        this.commands = commands;
        this.windowMs = windowMs;
    }

    /** @param windowMs the dedup window: the requests store keeps that much (a second when nothing is remembered) */
    static Set<StoreBuilder<?>> storeBuilders(long windowMs) {
        return Set.of(store(STORE, Duration.ofMillis(Math.max(windowMs, 1_000))), store(COMMANDS_STORE, COMMAND_RETENTION));
    }

    private static StoreBuilder<WindowStore<String, byte[]>> store(String name, Duration retention) {
        return Stores.windowStoreBuilder(Stores.persistentWindowStore(name, retention, Duration.ofMillis(1), false),
                Serdes.String(), Serdes.ByteArray()).withCachingEnabled();
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
        KeyValue<Long, byte[]> entry = find(requests, windowMs, key(apiKey, requestId), now);
        return entry == null ? null : DecisionCodec.decode(entry.value, requestId, apiKey, plans);
    }

    /** Remembers a request's decision, made at record time {@code now}. */
    void remember(Decision decision, long now) {
        if (windowMs > 0) {
            requests.put(key(decision.apiKey(), decision.requestId()), DecisionCodec.encode(decision), now);
        }
    }

    /** When the command with this id was applied to the key, within the retention before {@code now}; else null. */
    Long commandApplied(String apiKey, String commandId, long now) {
        KeyValue<Long, byte[]> entry = find(commands, COMMAND_RETENTION.toMillis(), key(apiKey, commandId), now);
        return entry == null ? null : entry.key;
    }

    void rememberCommand(String apiKey, String commandId, long now) {
        commands.put(key(apiKey, commandId), APPLIED, now);
    }

    /** The entry filed for the key within the retention around {@code now}: before it, or after it when records interleave. */
    private static KeyValue<Long, byte[]> find(WindowStore<String, byte[]> store, long retentionMs, String key, long now) {
        try (WindowStoreIterator<byte[]> entries = store.fetch(key, now - retentionMs, now + retentionMs)) {
            return entries.hasNext() ? entries.next() : null;
        }
    }

    /** {@code <length of the API key>:<API key><id>}: unambiguous whatever the ids hold. */
    private static String key(String apiKey, String id) {
        return apiKey.length() + ":" + apiKey + id;
    }
}

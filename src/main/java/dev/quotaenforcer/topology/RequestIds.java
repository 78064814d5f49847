package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.DecisionCodec;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.plan.Plan;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
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
 * tombstone per request. Nearly every request id is new, so the request store has no record cache
 * (nothing would coalesce) and is asked only when an in-memory filter of recent ids' hashes, rebuilt
 * from the store when the task starts, has seen the hash: a fetch from a window store costs more than
 * deciding the request.
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
    private final RecentHashes recent;
    /** The newest record time remembered: the store drops what is a window older. */
    private long newest = Long.MIN_VALUE;

    /**
     * Reads the remembered ids' hashes from the request store.
     *
     * @param windowMs how long a decided request's id is remembered; 0 remembers none
     */
    RequestIds(WindowStore<String, byte[]> requests, WindowStore<String, byte[]> commands, long windowMs) {
        this.requests = requests;
        this.commands = commands;
        this.windowMs = windowMs;
        this.recent = new RecentHashes(windowMs);
        if (windowMs > 0) {
            try (KeyValueIterator<Windowed<String>, byte[]> all = requests.all()) {
                while (all.hasNext()) {
                    Windowed<String> entry = all.next().key;
                    recent.add(entry.key().hashCode(), entry.window().start());
                }
            }
        }
    }

    /** @param windowMs the dedup window: the requests store keeps that much (a second when nothing is remembered) */
    static Set<StoreBuilder<?>> storeBuilders(long windowMs) {
        return Set.of(store(STORE, Duration.ofMillis(Math.max(windowMs, 1_000))),
                store(COMMANDS_STORE, COMMAND_RETENTION).withCachingEnabled());
    }

    /**
     * In memory, restored from the changelog at every start: Kafka Streams 4.4 finds no checkpointed
     * offset for a persistent window store after a clean stop under exactly-once and wipes its task.
     */
    private static StoreBuilder<WindowStore<String, byte[]>> store(String name, Duration retention) {
        return Stores.windowStoreBuilder(Stores.inMemoryWindowStore(name, retention, Duration.ofMillis(1), false),
                Serdes.String(), Serdes.ByteArray());
    }

    /**
     * The decision of the request with this id decided within the window before {@code now}, else null.
     *
     * @param id    the request's {@link #id}
     * @param plans the plans in force by id, which its headers are rebuilt from
     */
    Decision original(String id, RequestEvent request, long now, Function<String, Plan> plans) {
        if (windowMs == 0 || !recent.mayContain(id.hashCode(), now)) {
            return null;
        }
        KeyValue<Long, byte[]> entry = find(requests, windowMs, id, now);
        return entry == null ? null : DecisionCodec.decode(entry.value, request.requestId(), request.apiKey(), plans);
    }

    /**
     * Remembers a request's decision, made at record time {@code now}; one already a window older than
     * the newest remembered (a record held back upstream) is not, as its window has passed.
     */
    void remember(String id, Decision decision, long now) {
        newest = Math.max(newest, now);
        if (windowMs > 0 && now > newest - windowMs) {
            requests.put(id, DecisionCodec.encode(decision), now);
            recent.add(id.hashCode(), now);
        }
    }

    /** When the command with this id was applied to the key, within the retention before {@code now}; else null. */
    Long commandApplied(String apiKey, String commandId, long now) {
        KeyValue<Long, byte[]> entry = find(commands, COMMAND_RETENTION.toMillis(), id(apiKey, commandId), now);
        return entry == null ? null : entry.key;
    }

    void rememberCommand(String apiKey, String commandId, long now) {
        commands.put(id(apiKey, commandId), APPLIED, now);
    }

    /** The entry filed for the key within the retention around {@code now}: before it, or after it when records interleave. */
    private static KeyValue<Long, byte[]> find(WindowStore<String, byte[]> store, long retentionMs, String key, long now) {
        try (WindowStoreIterator<byte[]> entries = store.fetch(key, now - retentionMs, now + retentionMs)) {
            return entries.hasNext() ? entries.next() : null;
        }
    }

    /**
     * The hashes of the ids remembered within the window, in two generations of a window each: a hash
     * not in either was not remembered; one in them may have been (a hash collision costs a store fetch).
     */
    static final class RecentHashes {
        private final long windowMs;
        private IntSet current = new IntSet();
        private IntSet previous = new IntSet();
        private long currentStart = Long.MIN_VALUE;

        RecentHashes(long windowMs) {
            this.windowMs = windowMs;
        }

        void add(int hash, long time) {
            rotate(time);
            current.add(hash);
        }

        boolean mayContain(int hash, long now) {
            rotate(now);
            return current.contains(hash) || previous.contains(hash);
        }

        /** Starts a new generation once the current one is a window old; what is two windows old goes. */
        private void rotate(long time) {
            if (currentStart == Long.MIN_VALUE) {
                currentStart = time;
            } else if (time - currentStart >= windowMs) {
                previous = time - currentStart >= 2 * windowMs ? new IntSet() : current;
                current = new IntSet();
                currentStart = time;
            }
        }
    }

    /** A set of ints by open addressing: no boxing per request. */
    static final class IntSet {
        private int[] slots = new int[1024];
        private boolean hasZero;
        private int size;

        void add(int value) {
            if (value == 0) {
                hasZero = true;
                return;
            }
            if (size * 2 >= slots.length) {
                grow();
            }
            int i = slot(slots, value);
            if (slots[i] == 0) {
                slots[i] = value;
                size++;
            }
        }

        boolean contains(int value) {
            return value == 0 ? hasZero : slots[slot(slots, value)] == value;
        }

        private void grow() {
            int[] old = slots;
            slots = new int[old.length * 2];
            for (int value : old) {
                if (value != 0) {
                    slots[slot(slots, value)] = value;
                }
            }
        }

        /** The slot holding {@code value}, else the empty one where it would go. */
        private static int slot(int[] slots, int value) {
            int mask = slots.length - 1;
            int i = (value * 0x9E3779B9) >>> 1 & mask;
            while (slots[i] != 0 && slots[i] != value) {
                i = (i + 1) & mask;
            }
            return i;
        }
    }

    /**
     * A request's or command's store key, {@code <length of the API key>:<API key><its id>}: unambiguous
     * whatever the ids hold.
     */
    static String id(String apiKey, String requestOrCommandId) {
        return apiKey.length() + ":" + apiKey + requestOrCommandId;
    }
}

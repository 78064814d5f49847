package dev.quotaenforcer.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * A key-value store that holds what its task changed since the last commit in a hash map and writes
 * it into the changelogged store beneath when Kafka Streams prepares the commit: one store write per
 * changed key and commit, and none of the sorted record cache's work per read and write.
 *
 * <p>Kafka Streams asks every store of a task to flush its cache before it flushes the task's
 * producer and commits (under exactly-once, before the transaction that carries the task's outputs
 * and input offsets commits), so what this store writes back is what that commit covers. A task
 * closed without committing drops what it held: under exactly-once its state is wiped anyway, and
 * under at-least-once its input is read again from the last commit. Writing back earlier is as safe
 * (it lands in the same open transaction), so the store does when it holds {@link #MAX_HELD} changes,
 * bounding its memory however long the commit interval, and before the task's own thread iterates.
 * Some changes it writes at once: the first after each commit, unless its builder says otherwise, and
 * each value its builder names settled. Under exactly-once its changelog partition then joins the open
 * transaction while the task works, not in the commit, whose producer flush had waited for the broker
 * to add the partition as well as for the records.
 * It keeps the values it wrote back lately too, unless they settled as they were written, so a key
 * changed again soon after a commit is not read back from the store beneath. Reads see the changes
 * held, interactive queries too, as the record cache lets them; an interactive query's iteration sees
 * the store beneath, as of the last write-back.
 *
 * <p>Kafka Streams prepares a thread's tasks for the commit one after another, each flushing its
 * stores and then the thread's one producer, so each task's write-back would cost the commit a
 * round trip of its own. The first of a commit's write-backs therefore writes back every write-back
 * store of the thread, all into the one open transaction: the first producer flush waits for them
 * together, and the later ones find nothing new to wait for.
 *
 * <p>The commit hook is {@code CachedStateStore.flushCache}, an interface of Kafka Streams' internals
 * that its own caching stores implement: an upgrade of Kafka Streams must keep calling it before the
 * producer flush, which the fault suite (state read back after kills and restarts) would show if it did not.
 */
final class WriteBackStore<K, V> extends WrappedStateStore<KeyValueStore<K, V>, K, V> implements KeyValueStore<K, V> {

    /**
     * The most changes held before they are written back without waiting for the commit; also the most values
     * kept once written, and half the most slots held before those not waiting for a write-back are let go.
     */
    static final int MAX_HELD = 20_000;
    /** Marks a key deleted (a concurrent map cannot hold null). */
    private static final Object DELETED = new Object();
    /** Marks a slot whose value is in the store beneath, not read yet. */
    private static final Object UNREAD = new Object();

    /**
     * A key's value held here: changed since the last write-back (dirty), written back lately, or to be read
     * from the store beneath when first asked ({@link #UNREAD}). Its value is replaced in place, so a key
     * decided again costs no map write, and the write-back marks it written instead of moving it to another
     * map. The task's thread may keep hold of a key's slot ({@link #slot}) to read and write the key without
     * looking it up again, and note what it knows of the key on it.
     */
    static final class Slot<K> {
        private final K key;
        /**
         * The value as the store's {@link Packing} holds it, {@link #DELETED} or {@link #UNREAD}; read by
         * interactive queries from other threads.
         */
        private volatile Object value;
        /** Whether it waits for the write-back; the owner's thread alone reads and writes it. */
        private boolean dirty;
        /** Whether {@link #held} maps its key to it: a slot let go is held again when it is written. */
        private boolean attached;
        /** What the owner's thread notes of the key beside its value; the store never reads it, and it goes with the slot. */
        Object note;

        private Slot(K key, Object value) {
            this.key = key;
            this.value = value;
        }

        K key() {
            return key;
        }
    }

    /**
     * The slots held: every change since the last write-back, and the values written back or read lately, at
     * most {@link #MAX_HELD} changes and twice that in all. A key decided again soon after a commit is not
     * read back from RocksDB, a JNI call and a decoding per read: under exactly-once, with a commit every
     * 100 ms, those reads and the write-back's puts took as much of the deciding thread as all the rest of
     * the enforcer's work per decision ({@code DecisionPathBenchmarks}). Concurrent, as interactive queries
     * read it from other threads.
     */
    private final Map<K, Slot<K>> held = new ConcurrentHashMap<>();
    /** The entries changed since the last write-back, in the order first changed; the owner's thread only. */
    private final List<Slot<K>> dirty = new ArrayList<>();
    /** The write-back stores each stream thread writes into, weakly held: a store never closed does not stay. */
    private static final ThreadLocal<Set<WriteBackStore<?, ?>>> BY_THREAD =
            ThreadLocal.withInitial(() -> Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>())));

    /** The task's thread: the one that writes, and the one whose iteration must see every change. */
    private volatile Thread owner;
    /** The write-back stores of {@link #owner}, this one among them; null while no thread owns this one. */
    private volatile Set<WriteBackStore<?, ?>> ownersStores;
    /** Values that will not change again (null for a deletion): nothing is gained by holding them, so they are written through. */
    private final Predicate<V> settled;
    /** Whether the first change after each commit is written at once. */
    private final boolean firstAtOnce;
    /** Whether anything went into the store beneath since the last commit. */
    private boolean wroteSinceCommit;
    /** How a slot holds a value. */
    private final Packing<V> packing;

    /**
     * How a slot holds a value: as another object that stands for it, such as the value's bytes alone, which
     * the value is made from again when read. A key's value is then one object fewer to fetch from memory
     * when its key is decided again, and one fewer for each young collection to copy while it is held.
     */
    interface Packing<V> {
        Object pack(V value);

        V unpack(Object packed);
    }

    private static final Packing<Object> AS_IS = new Packing<>() {
        @Override
        public Object pack(Object value) {
            return value;
        }

        @Override
        public Object unpack(Object packed) {
            return packed;
        }
    };

    @SuppressWarnings("unchecked")
    private static <V> Packing<V> asIs() {
        return (Packing<V>) AS_IS;
    }

    private WriteBackStore(KeyValueStore<K, V> stored, Predicate<V> settled, boolean firstAtOnce, Packing<V> packing) {
        super(stored);
        this.settled = settled;
        this.firstAtOnce = firstAtOnce;
        this.packing = packing;
    }

    /**
     * Builds the store over what {@code stored} builds, which must log and must not cache: it holds
     * every change but the first after each commit, which it writes at once.
     */
    static <K, V> StoreBuilder<WriteBackStore<K, V>> builder(StoreBuilder<KeyValueStore<K, V>> stored) {
        return new Builder<>(stored.withCachingDisabled(), value -> false, true, asIs());
    }

    /** As {@link #builder(StoreBuilder)}, its slots holding each value as {@code packing} packs it. */
    static <K, V> StoreBuilder<WriteBackStore<K, V>> builder(StoreBuilder<KeyValueStore<K, V>> stored, Packing<V> packing) {
        return new Builder<>(stored.withCachingDisabled(), value -> false, true, packing);
    }

    /**
     * Builds the store over what {@code stored} builds, writing a value that {@code settled} accepts into
     * it at once instead of holding it: for values final when put, whose bytes need not wait for the commit.
     * {@code settled} is asked about a deletion as null. With {@code firstAtOnce} the first change after
     * each commit is written at once too; without it every other change waits for the commit.
     */
    static <K, V> StoreBuilder<WriteBackStore<K, V>> builder(StoreBuilder<KeyValueStore<K, V>> stored,
                                                             Predicate<V> settled, boolean firstAtOnce) {
        return new Builder<>(stored.withCachingDisabled(), settled, firstAtOnce, asIs());
    }

    /**
     * The write-back store that {@code store} is or wraps: what a processor's context hands it wraps the
     * store in a decorator, which only refuses the calls that Kafka Streams alone may make.
     */
    @SuppressWarnings("unchecked")
    static <K, V> WriteBackStore<K, V> of(StateStore store) {
        StateStore unwrapped = store;
        while (!(unwrapped instanceof WriteBackStore) && unwrapped instanceof WrappedStateStore<?, ?, ?> wrapper) {
            unwrapped = wrapper.wrapped();
        }
        if (unwrapped instanceof WriteBackStore<?, ?> writeBack) {
            return (WriteBackStore<K, V>) writeBack;
        }
        throw new IllegalArgumentException("store " + store.name() + " is not a write-back store");
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        forgetHeld();
        super.init(context, root);
    }

    @Override
    public V get(K key) {
        Slot<K> slot = held.get(key);
        Object value = slot == null ? UNREAD : slot.value;
        return value == UNREAD ? wrapped().get(key) : valueOf(value);
    }

    /**
     * The slot of {@code key}, for the task's own thread to read ({@link #value}) and write ({@link #put(Slot, Object)})
     * the key by, and to note what it knows of the key on: the slot held, else a new one, whose value is read
     * from the store beneath when first asked. It is let go, with its note, when too many are held; writing a
     * slot let go holds it again.
     */
    Slot<K> slot(K key) {
        if (owner != Thread.currentThread()) {
            adopt();
        }
        Slot<K> slot = held.get(key);
        if (slot == null) {
            if (held.size() >= 2 * MAX_HELD) {
                letGoOfUnchanged();
            }
            slot = new Slot<>(key, UNREAD);
            hold(slot);
        }
        return slot;
    }

    /**
     * The value of the slot's key (null for none), read from the store beneath the first time, unless
     * {@code mayBeStored} says the store beneath has no value of it.
     */
    V value(Slot<K> slot, Predicate<K> mayBeStored) {
        Object value = slot.value;
        if (value == UNREAD) {
            V stored = mayBeStored.test(slot.key) ? wrapped().get(slot.key) : null;
            if (stored == null) {
                slot.value = DELETED;
                return null;
            }
            slot.value = packing.pack(stored);
            return stored;
        }
        return valueOf(value);
    }

    /**
     * The value of the slot's key now (null for none): the slot's own while it is held, else what a
     * read of the key finds, as a slot let go may have been followed by another of the same key.
     */
    V current(Slot<K> slot) {
        Object value = slot.attached && Thread.currentThread() == owner ? slot.value : UNREAD;
        return value == UNREAD ? get(slot.key) : valueOf(value);
    }

    @Override
    public void put(K key, V value) {
        if (owner != Thread.currentThread()) {
            adopt();
        }
        if (settled.test(value)) {
            wrapped().put(key, value);
            wroteSinceCommit = true;
            // Removed only once written, so a concurrent reader finds the value in one place or the other;
            // a change of it still waiting is dropped, as this write supersedes it.
            Slot<K> slot = held.remove(key);
            if (slot != null) {
                slot.dirty = false;
                slot.attached = false;
            }
            return;
        }
        Slot<K> slot = held.get(key);
        if (slot == null) {
            slot = new Slot<>(key, null);
            hold(slot);
        }
        change(slot, value);
    }

    /** Writes the slot's key ({@link #slot}), as {@link #put(Object, Object)} would, without looking it up. */
    void put(Slot<K> slot, V value) {
        if (owner != Thread.currentThread() || settled.test(value)) {
            put(slot.key, value);
            return;
        }
        if (!slot.attached) {
            Slot<K> current = held.get(slot.key);
            if (current != null) {
                slot = current;
            } else {
                hold(slot);
            }
        }
        change(slot, value);
    }

    /** A held slot's new value, waiting for the write-back. */
    private void change(Slot<K> slot, V value) {
        slot.value = value == null ? DELETED : packing.pack(value);
        if (!slot.dirty) {
            slot.dirty = true;
            dirty.add(slot);
        }
        if (dirty.size() > MAX_HELD || firstAtOnce && !wroteSinceCommit) {
            writeBack();
        }
    }

    private void hold(Slot<K> slot) {
        held.put(slot.key, slot);
        slot.attached = true;
    }

    private V valueOf(Object value) {
        return value == DELETED ? null : packing.unpack(value);
    }

    @Override
    public V putIfAbsent(K key, V value) {
        V current = get(key);
        if (current == null) {
            put(key, value);
        }
        return current;
    }

    @Override
    public void putAll(List<KeyValue<K, V>> entries) {
        entries.forEach(entry -> put(entry.key, entry.value));
    }

    @Override
    public V delete(K key) {
        V current = get(key);
        put(key, null);
        return current;
    }

    /**
     * Writes every change held into the store beneath, in this task's open transaction, and keeps the
     * values written for reads to come (what was kept before goes when they would be too many).
     */
    private void writeBack() {
        if (dirty.isEmpty()) {
            return;
        }
        List<KeyValue<K, V>> changes = new ArrayList<>(dirty.size());
        for (Slot<K> slot : dirty) {
            // Not dirty any more: a value that settled since was written through in its place.
            if (slot.dirty) {
                changes.add(KeyValue.pair(slot.key, valueOf(slot.value)));
            }
        }
        // One write batch into RocksDB (a null value deletes), where a put per key went into RocksDB key by key.
        wrapped().putAll(changes);
        // Let go of what was kept before only now that the changes are in the store beneath, where a
        // concurrent reader that misses them here finds them.
        boolean tooMany = held.size() > MAX_HELD;
        if (tooMany) {
            letGoOfAll();
        }
        // A value that settled as it was written (a request-id batch, which its serializer seals) is not kept:
        // its task writes such values and never reads them, and kept they stayed on the heap until deleted,
        // beside their ids' index.
        for (Slot<K> slot : dirty) {
            if (!slot.dirty) {
                continue;
            }
            slot.dirty = false;
            if (settled.test(valueOf(slot.value))) {
                if (!tooMany) {
                    held.remove(slot.key, slot);
                    slot.attached = false;
                }
            } else if (tooMany) {
                hold(slot);
            }
        }
        dirty.clear();
        wroteSinceCommit = true;
    }

    private void letGoOfAll() {
        held.values().forEach(slot -> slot.attached = false);
        held.clear();
    }

    /** Lets go of the slots whose values wait for no write-back: those read, and those written back. */
    private void letGoOfUnchanged() {
        held.values().removeIf(slot -> {
            if (slot.dirty) {
                return false;
            }
            slot.attached = false;
            return true;
        });
    }

    /** Makes the calling thread this store's owner, among whose stores a commit writes back. */
    private void adopt() {
        release();
        Set<WriteBackStore<?, ?>> stores = BY_THREAD.get();
        stores.add(this);
        ownersStores = stores;
        owner = Thread.currentThread();
    }

    private void release() {
        Set<WriteBackStore<?, ?>> stores = ownersStores;
        if (stores != null) {
            stores.remove(this);
        }
        ownersStores = null;
        owner = null;
    }

    private void forgetHeld() {
        letGoOfAll();
        dirty.clear();
        wroteSinceCommit = false;
    }

    /** Called by Kafka Streams as it prepares the task's commit: writes back this store and the owner's others. */
    @Override
    public void flushCache() {
        Set<WriteBackStore<?, ?>> stores = ownersStores;
        if (stores != null && Thread.currentThread() == owner) {
            List<WriteBackStore<?, ?>> all;
            synchronized (stores) {
                all = new ArrayList<>(stores);
            }
            all.forEach(WriteBackStore::writeBack);
        }
        writeBack();
        wroteSinceCommit = false;
        super.flushCache();
    }

    /**
     * Called when the task's state is handed over without a commit: what is held belongs to no commit,
     * and what was written back may be wiped with the store.
     */
    @Override
    public void clearCache() {
        forgetHeld();
        super.clearCache();
    }

    @Override
    public void close() {
        release();
        forgetHeld();
        super.close();
    }

    /** The store beneath, with every change written into it first when the task's own thread asks. */
    private KeyValueStore<K, V> iterated() {
        if (Thread.currentThread() == owner) {
            writeBack();
        }
        return wrapped();
    }

    @Override
    public KeyValueIterator<K, V> range(K from, K to) {
        return iterated().range(from, to);
    }

    @Override
    public KeyValueIterator<K, V> reverseRange(K from, K to) {
        return iterated().reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<K, V> all() {
        return iterated().all();
    }

    @Override
    public KeyValueIterator<K, V> reverseAll() {
        return iterated().reverseAll();
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<K, V> prefixScan(P prefix, PS prefixKeySerializer) {
        return iterated().prefixScan(prefix, prefixKeySerializer);
    }

    /** The keys stored beneath, plus the changes held not yet written back. */
    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries() + dirty.size();
    }

    /** Builds a {@link WriteBackStore} over another builder's store, whose name and changelog it keeps. */
    private static final class Builder<K, V> implements StoreBuilder<WriteBackStore<K, V>> {
        private final StoreBuilder<KeyValueStore<K, V>> stored;
        private final Predicate<V> settled;
        private final boolean firstAtOnce;
        private final Packing<V> packing;

        Builder(StoreBuilder<KeyValueStore<K, V>> stored, Predicate<V> settled, boolean firstAtOnce, Packing<V> packing) {
            this.stored = stored;
            this.settled = settled;
            this.firstAtOnce = firstAtOnce;
            this.packing = packing;
        }

        @Override
        public StoreBuilder<WriteBackStore<K, V>> withCachingEnabled() {
            throw new UnsupportedOperationException("a write-back store is its own cache");
        }

        @Override
        public StoreBuilder<WriteBackStore<K, V>> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<WriteBackStore<K, V>> withLoggingEnabled(Map<String, String> config) {
            stored.withLoggingEnabled(config);
            return this;
        }

        /** Without a changelog it still writes back as each commit is prepared: into a store that only this instance has. */
        @Override
        public StoreBuilder<WriteBackStore<K, V>> withLoggingDisabled() {
            stored.withLoggingDisabled();
            return this;
        }

        @Override
        public WriteBackStore<K, V> build() {
            return new WriteBackStore<>(stored.build(), settled, firstAtOnce, packing);
        }

        @Override
        public Map<String, String> logConfig() {
            return stored.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return stored.loggingEnabled();
        }

        @Override
        public String name() {
            return stored.name();
        }
    }
}

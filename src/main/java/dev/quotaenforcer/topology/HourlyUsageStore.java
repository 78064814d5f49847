package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyUsage;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The per-task store of usage per API key and calendar hour: its name, key layout and value format.
 * Keys lead with the hour in a form that sorts by time, so one hour's keys, or every hour before
 * one, are a single range.
 */
public final class HourlyUsageStore {

    /** The store's name; its changelog topic is {@code <application.id>-usage-by-key-hour-changelog}. */
    public static final String NAME = "usage-by-key-hour";

    /** The length of the hours the store counts in. */
    static final long HOUR_MS = Duration.ofHours(1).toMillis();
    private static final int HOUR_DIGITS = 16;
    static final Serde<Entry> ENTRY_SERDE = Serdes.serdeFrom(new EntrySerializer(), new EntryDeserializer());

    /**
     * A key's figure for one hour, and the task's write (counted from 1) that is to take it to the
     * usage topic: a figure whose write is later than the task's last completed one is unwritten.
     */
    public record Entry(KeyUsage usage, long write) {
    }

    private HourlyUsageStore() {
    }

    /** In memory (two hours of small records, restored from the changelog on start), written back so the changelog gets a key's latest figure once per commit. */
    static StoreBuilder<WriteBackStore<String, Entry>> builder() {
        return WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(NAME), Serdes.String(), ENTRY_SERDE));
    }

    /** The store key of a key's hour starting at {@code hourMs}. */
    static String key(String apiKey, long hourMs) {
        return hourPrefix(hourMs) + apiKey;
    }

    /** The prefix every store key of the hour starting at {@code hourMs} begins with; prefixes sort as their hours. */
    static String hourPrefix(long hourMs) {
        // Hex of the time with its sign bit flipped: fixed width, and unsigned order equals signed time order.
        String hex = Long.toHexString(hourMs ^ Long.MIN_VALUE);
        char[] padded = new char[HOUR_DIGITS];
        Arrays.fill(padded, 0, HOUR_DIGITS - hex.length(), '0');
        hex.getChars(0, hex.length(), padded, HOUR_DIGITS - hex.length());
        return new String(padded);
    }

    /** A key's usage in the hour starting at {@code hour}, or null when it made no counted request in it. */
    public static KeyUsage usage(ReadOnlyKeyValueStore<String, Entry> store, String apiKey, Instant hour) {
        Entry entry = store.get(key(apiKey, hour.toEpochMilli()));
        return entry == null ? null : entry.usage();
    }

    /** Every key's usage in the hour starting at {@code hour}. */
    public static KeyValueIterator<String, Entry> hour(ReadOnlyKeyValueStore<String, Entry> store, Instant hour) {
        long start = hour.toEpochMilli();
        // Store keys of the next hour begin with its prefix; the range is inclusive of its end, which no real key equals.
        return store.range(hourPrefix(start), hourPrefix(start + HOUR_MS));
    }

    private static final class EntrySerializer implements Serializer<Entry> {
        @Override
        public byte[] serialize(String topic, Entry entry) {
            if (entry == null) {
                return null;
            }
            return KeyUsageSerde.write(entry.usage(), Long.BYTES).putLong(entry.write()).array();
        }
    }

    private static final class EntryDeserializer implements Deserializer<Entry> {
        @Override
        public Entry deserialize(String topic, byte[] bytes) {
            if (bytes == null) {
                return null;
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            KeyUsage usage = KeyUsageSerde.read(buffer, topic);
            if (buffer.remaining() != Long.BYTES) {
                throw new SerializationException("usage entry of " + bytes.length + " bytes without its write number on " + topic);
            }
            return new Entry(usage, buffer.getLong());
        }
    }
}

package dev.quotaenforcer.topology;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binary form of a {@link KeyEntry} in the key-state store and its changelog.
 *
 * <p>Layout: the byte {@link KeyEntry#FORMAT}; the state's length as a varint (0: none) and the
 * {@code KeyStateCodec} bytes; then, until the end, one figure per hour: the plan id's UTF-8 length
 * plus one (0: none) and its bytes, the hour's number since the epoch (zig-zag varint), then the
 * quota, the allowed and denied requests and cost, the requests denied by the quota and the write
 * number, as varints. A value that starts with a {@code KeyStateCodec} version byte instead (1 or 2)
 * is a state stored before entries held usage, read as that state alone.
 *
 * <p>The changelog is an internal topic, but whoever can write it could put anything there: a value
 * that cannot be read is logged and read as no entry, which costs that key its counts and nothing else.
 */
final class KeyEntrySerde implements Serde<KeyEntry> {

    private static final Logger LOG = LoggerFactory.getLogger(KeyEntrySerde.class);

    @Override
    public Serializer<KeyEntry> serializer() {
        return (topic, entry) -> entry == null ? null : write(entry);
    }

    @Override
    public Deserializer<KeyEntry> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return read(bytes);
            } catch (IllegalArgumentException | ArithmeticException e) {
                LOG.error("Discarding an unreadable key entry of {} bytes in {}: {}", bytes.length, topic, e.getMessage());
                return null;
            }
        };
    }

    /** The entry's bytes, as it holds them. */
    static byte[] write(KeyEntry entry) {
        return entry.encoded();
    }

    /** The entry of {@code bytes}; throws {@link IllegalArgumentException} when they are not one. */
    static KeyEntry read(byte[] bytes) {
        if (bytes.length == 0) {
            throw new IllegalArgumentException("empty value");
        }
        if (bytes[0] != KeyEntry.FORMAT) {
            // A state alone, as stored before entries held usage; KeyStateCodec refuses it if it is not one.
            return KeyEntry.ofStateBytes(bytes);
        }
        return KeyEntry.read(bytes);
    }
}

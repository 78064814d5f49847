package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyUsage;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of a key's hourly usage inside the topology (its store and changelog, see
 * {@link HourlyUsageStore}). Every decision reads and rewrites its key's figure in the cached store,
 * which holds it serialized: in JSON, parsing the hour's timestamp alone cost more than deciding.
 * The usage topic itself stays JSON.
 */
final class KeyUsageSerde implements Serde<KeyUsage> {

    private static final byte VERSION = 1;

    @Override
    public Serializer<KeyUsage> serializer() {
        return (topic, usage) -> usage == null ? null : write(usage, 0).array();
    }

    @Override
    public Deserializer<KeyUsage> deserializer() {
        return (topic, bytes) -> {
            return bytes == null ? null : read(ByteBuffer.wrap(bytes), topic);
        };
    }

    /** The usage's bytes in a buffer with {@code trailing} bytes of room after them, positioned there. */
    static ByteBuffer write(KeyUsage usage, int trailing) {
        byte[] apiKey = usage.apiKey().getBytes(StandardCharsets.UTF_8);
        byte[] plan = usage.plan() == null ? null : usage.plan().getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer = ByteBuffer.allocate(1 + 4 + apiKey.length + 4 + (plan == null ? 0 : plan.length) + 7 * 8 + trailing);
        buffer.put(VERSION);
        buffer.putInt(apiKey.length).put(apiKey);
        buffer.putInt(plan == null ? -1 : plan.length);
        if (plan != null) {
            buffer.put(plan);
        }
        return buffer.putLong(usage.quota()).putLong(usage.hour().toEpochMilli())
                .putLong(usage.allowed()).putLong(usage.denied())
                .putLong(usage.allowedCost()).putLong(usage.deniedCost())
                .putLong(usage.quotaDenied());
    }

    /** The usage at the buffer's position, which it leaves after it. */
    static KeyUsage read(ByteBuffer buffer, String topic) {
        try {
            byte version = buffer.get();
            if (version != VERSION) {
                throw new SerializationException("key usage of unknown format version " + version + " on " + topic);
            }
            String apiKey = text(buffer, buffer.getInt());
            int planLength = buffer.getInt();
            String plan = planLength < 0 ? null : text(buffer, planLength);
            return new KeyUsage(apiKey, plan, buffer.getLong(), Instant.ofEpochMilli(buffer.getLong()), buffer.getLong(),
                    buffer.getLong(), buffer.getLong(), buffer.getLong(), buffer.getLong());
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new SerializationException("truncated key usage (" + buffer.limit() + " bytes) on " + topic, e);
        }
    }

    private static String text(ByteBuffer buffer, int length) {
        String text = new String(buffer.array(), buffer.position(), length, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + length);
        return text;
    }
}

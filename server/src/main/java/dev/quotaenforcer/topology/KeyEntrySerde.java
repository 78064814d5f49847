package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.VarBytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The binary form of a {@link KeyEntry} in the key-state store and its changelog.
 *
 * <p>Layout: the byte {@link #FORMAT}; the state's length as a varint (0: none) and the
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

    static final byte FORMAT = 16;
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

    static byte[] write(KeyEntry entry) {
        byte[] state = entry.stateBytes();
        // Room for the state and an hour's figures, so the buffer is not grown and copied on the way.
        VarBytes.Writer out = new VarBytes.Writer((state == null ? 0 : state.length) + 48 * entry.hours().size() + 8);
        out.write(FORMAT);
        if (state == null) {
            out.unsigned(0);
        } else {
            out.unsigned(state.length);
            out.bytes(state);
        }
        List<KeyEntry.Hour> hours = entry.hours();
        for (int i = 0; i < hours.size(); i++) {
            KeyEntry.Hour hour = hours.get(i);
            if (hour.plan() == null) {
                out.unsigned(0);
            } else {
                byte[] plan = hour.plan().getBytes(StandardCharsets.UTF_8);
                out.unsigned(plan.length + 1L);
                out.bytes(plan);
            }
            out.signed(Math.floorDiv(hour.hourMs(), KeyEntry.HOUR_MS));
            out.unsigned(hour.quota());
            out.unsigned(hour.allowed());
            out.unsigned(hour.denied());
            out.unsigned(hour.allowedCost());
            out.unsigned(hour.deniedCost());
            out.unsigned(hour.quotaDenied());
            out.unsigned(hour.write());
        }
        return out.toByteArray();
    }

    /** The entry of {@code bytes}; throws {@link IllegalArgumentException} when they are not one. */
    static KeyEntry read(byte[] bytes) {
        if (bytes.length == 0) {
            throw new IllegalArgumentException("empty value");
        }
        if (bytes[0] != FORMAT) {
            // A state alone, as stored before entries held usage; KeyStateCodec refuses it if it is not one.
            return KeyEntry.stored(bytes, List.of());
        }
        VarBytes.Reader in = new VarBytes.Reader(bytes);
        in.read();
        int stateLength = Math.toIntExact(in.unsigned());
        byte[] state = stateLength == 0 ? null : in.bytes(stateLength);
        List<KeyEntry.Hour> hours = new ArrayList<>(1);
        while (in.hasMore()) {
            long planLength = in.unsigned();
            String plan = planLength == 0 ? null
                    : new String(in.bytes(Math.toIntExact(planLength - 1)), StandardCharsets.UTF_8);
            long hourMs = Math.multiplyExact(in.signed(), KeyEntry.HOUR_MS);
            hours.add(new KeyEntry.Hour(plan, in.unsigned(), hourMs, in.unsigned(), in.unsigned(), in.unsigned(),
                    in.unsigned(), in.unsigned(), in.unsigned()));
        }
        return KeyEntry.stored(state, hours);
    }
}

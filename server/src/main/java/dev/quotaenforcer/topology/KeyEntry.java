package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.KeyStateCodec;
import dev.quotaenforcer.event.KeyUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a task keeps of one API key, in one store entry: its limiter state and its figures for the
 * hours still open or not yet written. One entry means a decision reads and writes one value, and a
 * commit writes each changed key once.
 *
 * <p>The state is held as its encoded bytes, decoded when asked: one small array where the decoded
 * state was a handful of objects, which the key's next decision found cold in memory at 100k keys;
 * and the expiry sweep needs only its idle time. Immutable, as interactive queries read entries
 * from other threads.
 */
public final class KeyEntry {

    static final long HOUR_MS = Duration.ofHours(1).toMillis();

    private final byte[] stateBytes;
    private final List<Hour> hours;

    private KeyEntry(byte[] stateBytes, List<Hour> hours) {
        this.stateBytes = stateBytes;
        this.hours = hours;
    }

    /** An entry read from the store: the state's bytes (null for none) and the hours' figures. */
    static KeyEntry stored(byte[] stateBytes, List<Hour> hours) {
        return new KeyEntry(stateBytes, List.copyOf(hours));
    }

    /** A key's figure for one calendar hour, and the task's write (counted from 1) that is to take it out. */
    public record Hour(String plan, long quota, long hourMs, long allowed, long denied, long allowedCost, long deniedCost,
                long quotaDenied, long write) {

        static Hour of(KeyUsage usage, long write) {
            return new Hour(usage.plan(), usage.quota(), usage.hour().toEpochMilli(), usage.allowed(), usage.denied(),
                    usage.allowedCost(), usage.deniedCost(), usage.quotaDenied(), write);
        }

        /** This figure with one decision's usage ({@code delta}, of the same hour) counted in, due at write {@code write}. */
        Hour plus(KeyUsage delta, long write) {
            return new Hour(delta.plan(), delta.quota(), hourMs, allowed + delta.allowed(), denied + delta.denied(),
                    allowedCost + delta.allowedCost(), deniedCost + delta.deniedCost(), quotaDenied + delta.quotaDenied(), write);
        }

        public KeyUsage usage(String apiKey) {
            return new KeyUsage(apiKey, plan, quota, Instant.ofEpochMilli(hourMs), allowed, denied, allowedCost,
                    deniedCost, quotaDenied);
        }
    }

    boolean hasState() {
        return stateBytes != null;
    }

    /** The limiter state, or null for none; throws {@link IllegalArgumentException} when its bytes cannot be read. */
    public KeyState state() {
        return stateBytes == null ? null : KeyStateCodec.decode(stateBytes);
    }

    /** The state's bytes as the store holds them, or null for none. */
    byte[] stateBytes() {
        return stateBytes;
    }

    /** When every window of the state has passed ({@link KeyState#idleFrom}); Long.MIN_VALUE without state. */
    long idleFrom() {
        return stateBytes == null ? Long.MIN_VALUE : KeyStateCodec.idleFrom(stateBytes);
    }

    public List<Hour> hours() {
        return hours;
    }

    /** The figure of the hour starting at {@code hourMs}, or null. */
    public Hour hour(long hourMs) {
        // Indexed: asked per decision, where the list's iterator was not scalar-replaced.
        for (int i = 0; i < hours.size(); i++) {
            Hour hour = hours.get(i);
            if (hour.hourMs() == hourMs) {
                return hour;
            }
        }
        return null;
    }

    /** This entry with {@code newState} (null: none) in place of its state. */
    KeyEntry withState(KeyState newState) {
        return new KeyEntry(encoded(newState), hours);
    }

    /** This entry with {@code figure} in place of the figure of its hour, or added. */
    KeyEntry withHour(Hour figure) {
        if (hours.isEmpty() || hours.size() == 1 && hours.get(0).hourMs() == figure.hourMs()) {
            // The common case, a key in one hour: no list to build and copy.
            return new KeyEntry(stateBytes, List.of(figure));
        }
        List<Hour> updated = new ArrayList<>(hours.size() + 1);
        for (Hour hour : hours) {
            if (hour.hourMs() != figure.hourMs()) {
                updated.add(hour);
            }
        }
        updated.add(figure);
        return new KeyEntry(stateBytes, List.copyOf(updated));
    }

    /** This entry with only the figures given (a subset of its own). */
    KeyEntry withHours(List<Hour> kept) {
        return new KeyEntry(stateBytes, List.copyOf(kept));
    }

    /** An entry with neither state nor figures, which the store need not keep. */
    boolean isEmpty() {
        return !hasState() && hours.isEmpty();
    }

    /** An entry of the state alone. */
    static KeyEntry of(KeyState state) {
        return new KeyEntry(encoded(state), List.of());
    }

    private static byte[] encoded(KeyState state) {
        return state == null ? null : KeyStateCodec.encode(state);
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.KeyStateCodec;
import dev.quotaenforcer.engine.VarBytes;
import dev.quotaenforcer.event.KeyUsage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a task keeps of one API key, in one store entry: its limiter state and its figures for the
 * hours still open or not yet written. One entry means a decision reads and writes one value, and a
 * commit writes each changed key once.
 *
 * <p>The entry is held as the bytes the store and its changelog take ({@link KeyEntrySerde} gives
 * the layout), read when asked: a key's next decision finds one small array, which the write-back
 * store's slot holds alone ({@link #PACKING}), where the state's bytes, a list and an hour's figure
 * were one object each to fetch from memory at 100k keys, and a write-back hands the store the bytes
 * as they are instead of writing them out again.
 * Immutable, as interactive queries read entries from other threads.
 */
public final class KeyEntry {

    static final long HOUR_MS = Duration.ofHours(1).toMillis();
    /** The first byte of an entry's bytes. */
    static final byte FORMAT = 16;
    /** Each thread's buffer an entry is written in before it is copied out at its size. */
    private static final ThreadLocal<VarBytes.Writer> SCRATCH = ThreadLocal.withInitial(() -> new VarBytes.Writer(256));
    private static final KeyEntry EMPTY = new KeyEntry(new byte[] {FORMAT, 0}, 2, 2);

    /** The entry's bytes, never changed once made: the store may hold the same array. */
    private final byte[] encoded;
    /** Where the state's bytes start in {@link #encoded} and where they end: the hours' figures follow. Equal for no state. */
    private final int stateFrom;
    private final int stateTo;

    private KeyEntry(byte[] encoded, int stateFrom, int stateTo) {
        this.encoded = encoded;
        this.stateFrom = stateFrom;
        this.stateTo = stateTo;
    }

    /**
     * The entry of bytes in {@link KeyEntrySerde}'s layout; throws {@link IllegalArgumentException}
     * when they are not one. The state's bytes are decoded only when asked.
     */
    static KeyEntry read(byte[] encoded) {
        if (encoded.length == 0 || encoded[0] != FORMAT) {
            throw new IllegalArgumentException("not a key entry");
        }
        KeyEntry entry = around(encoded);
        // Every figure is read once here, so a figure that cannot be read fails the entry now, not a decision later.
        entry.hours();
        return entry;
    }

    /** The entry around bytes that begin with the format byte: where its state starts and ends, read from them. */
    private static KeyEntry around(byte[] encoded) {
        VarBytes.Reader in = new VarBytes.Reader(encoded);
        in.read();
        int stateLength = Math.toIntExact(in.unsigned());
        int stateFrom = in.position();
        in.skip(stateLength);
        return new KeyEntry(encoded, stateFrom, in.position());
    }

    /**
     * How a write-back store's slot holds an entry: its bytes alone, the entry made again around them when
     * read. The bytes are an entry's own, checked when it was read or made, so they are not read again here.
     */
    static final WriteBackStore.Packing<KeyEntry> PACKING = new WriteBackStore.Packing<>() {
        @Override
        public Object pack(KeyEntry entry) {
            return entry.encoded;
        }

        @Override
        public KeyEntry unpack(Object packed) {
            byte[] encoded = (byte[]) packed;
            // The state's length follows the format byte: one byte of it for a state under 128 bytes.
            int stateLength = encoded[1];
            return stateLength >= 0 ? new KeyEntry(encoded, 2, 2 + stateLength) : around(encoded);
        }
    };

    /** An entry of a state alone, stored as its bytes before entries held usage. */
    static KeyEntry ofStateBytes(byte[] state) {
        VarBytes.Writer out = SCRATCH.get().reset();
        out.bytes(state);
        return assemble(out, state.length);
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

        private void writeTo(VarBytes.Writer out) {
            out.text(plan);
            out.signed(Math.floorDiv(hourMs, HOUR_MS));
            out.unsigned(quota);
            out.unsigned(allowed);
            out.unsigned(denied);
            out.unsigned(allowedCost);
            out.unsigned(deniedCost);
            out.unsigned(quotaDenied);
            out.unsigned(write);
        }

        /** Reads the rest of a figure whose plan is {@code plan} and whose hour number {@code in} has just read. */
        private static Hour readRest(String plan, long hourNumber, VarBytes.Reader in) {
            long hourMs = Math.multiplyExact(hourNumber, HOUR_MS);
            return new Hour(plan, in.unsigned(), hourMs, in.unsigned(), in.unsigned(), in.unsigned(), in.unsigned(),
                    in.unsigned(), in.unsigned());
        }
    }

    boolean hasState() {
        return stateTo > stateFrom;
    }

    /** The limiter state, or null for none; throws {@link IllegalArgumentException} when its bytes cannot be read. */
    public KeyState state() {
        return hasState() ? KeyStateCodec.decode(encoded, stateFrom, stateTo) : null;
    }

    /** A copy of the state's bytes as the store holds them, or null for none. */
    byte[] stateBytes() {
        return hasState() ? Arrays.copyOfRange(encoded, stateFrom, stateTo) : null;
    }

    /** The entry's bytes, as the store and its changelog take them; not to be changed. */
    byte[] encoded() {
        return encoded;
    }

    /** When every window of the state has passed ({@link KeyState#idleFrom}); Long.MIN_VALUE without state. */
    long idleFrom() {
        return hasState() ? KeyStateCodec.idleFrom(encoded, stateFrom, stateTo) : Long.MIN_VALUE;
    }

    /** The figures of the hours, in the order they were added. */
    public List<Hour> hours() {
        List<Hour> hours = new ArrayList<>(1);
        VarBytes.Reader in = hoursReader();
        while (in.hasMore()) {
            String plan = readPlan(in);
            hours.add(Hour.readRest(plan, in.signed(), in));
        }
        return hours;
    }

    /** The figure of the hour starting at {@code hourMs}, or null. */
    public Hour hour(long hourMs) {
        return hour(hourMs, null);
    }

    /**
     * The figure of the hour starting at {@code hourMs}, or null. Its plan is {@code likelyPlan} itself when
     * that is the figure's plan: a decision on the key's plan, as nearly every one is, decodes no text.
     */
    Hour hour(long hourMs, String likelyPlan) {
        VarBytes.Reader in = hoursReader();
        while (in.hasMore()) {
            int planLength = Math.toIntExact(in.unsigned());
            int planAt = in.position();
            in.skip(Math.max(0, planLength - 1));
            long hourNumber = in.signed();
            if (Math.multiplyExact(hourNumber, HOUR_MS) == hourMs) {
                String plan = planLength == 0 ? null : text(planAt, planLength - 1, likelyPlan);
                return Hour.readRest(plan, hourNumber, in);
            }
            skipNumbers(in);
        }
        return null;
    }

    /** This entry with {@code newState} (null: none) in place of its state. */
    KeyEntry withState(KeyState newState) {
        return with(newState, null);
    }

    /**
     * This entry with {@code newState} (null: none) in place of its state and, unless null, {@code figure}
     * in place of the figure of its hour, or added: what a decision writes, made in one go.
     */
    KeyEntry with(KeyState newState, Hour figure) {
        VarBytes.Writer out = SCRATCH.get().reset();
        if (newState != null) {
            KeyStateCodec.encode(newState, out);
        }
        int stateLength = out.size();
        copyHoursBut(figure, out);
        return assemble(out, stateLength);
    }

    /** This entry with {@code figure} in place of the figure of its hour, or added. */
    KeyEntry withHour(Hour figure) {
        VarBytes.Writer out = SCRATCH.get().reset();
        out.bytes(encoded, stateFrom, stateTo - stateFrom);
        copyHoursBut(figure, out);
        return assemble(out, stateTo - stateFrom);
    }

    /** This entry with only the figures given (a subset of its own). */
    KeyEntry withHours(List<Hour> kept) {
        VarBytes.Writer out = SCRATCH.get().reset();
        out.bytes(encoded, stateFrom, stateTo - stateFrom);
        for (Hour hour : kept) {
            hour.writeTo(out);
        }
        return assemble(out, stateTo - stateFrom);
    }

    /** An entry with neither state nor figures, which the store need not keep. */
    boolean isEmpty() {
        return !hasState() && stateTo == encoded.length;
    }

    /** An entry of the state alone. */
    static KeyEntry of(KeyState state) {
        return state == null ? EMPTY : EMPTY.withState(state);
    }

    /** The figures' bytes but the one of {@code figure}'s hour, copied as they are, then {@code figure} (unless null). */
    private void copyHoursBut(Hour figure, VarBytes.Writer out) {
        VarBytes.Reader in = hoursReader();
        while (in.hasMore()) {
            int from = in.position();
            in.skip(Math.max(0, Math.toIntExact(in.unsigned()) - 1));
            long hourMs = Math.multiplyExact(in.signed(), HOUR_MS);
            skipNumbers(in);
            if (figure == null || hourMs != figure.hourMs()) {
                out.bytes(encoded, from, in.position() - from);
            }
        }
        if (figure != null) {
            figure.writeTo(out);
        }
    }

    /** The entry of the state's bytes and then the figures' that {@code out} holds: the format byte and the state's length go first. */
    private static KeyEntry assemble(VarBytes.Writer out, int stateLength) {
        int stateFrom = 1 + VarBytes.unsignedSize(stateLength);
        byte[] encoded = new byte[stateFrom + out.size()];
        encoded[0] = FORMAT;
        VarBytes.putUnsigned(encoded, 1, stateLength);
        out.copyTo(encoded, stateFrom);
        return new KeyEntry(encoded, stateFrom, stateFrom + stateLength);
    }

    /** The UTF-8 text {@code encoded[at, at + length)}: {@code likely} itself when it is that text (in ASCII). */
    private String text(int at, int length, String likely) {
        if (likely != null && likely.length() == length) {
            int i = 0;
            // A byte of a multi-byte character is negative, so it never equals a char.
            while (i < length && likely.charAt(i) == encoded[at + i]) {
                i++;
            }
            if (i == length) {
                return likely;
            }
        }
        return new String(encoded, at, length, StandardCharsets.UTF_8);
    }

    private VarBytes.Reader hoursReader() {
        return new VarBytes.Reader(encoded, stateTo, encoded.length);
    }

    private String readPlan(VarBytes.Reader in) {
        int planLength = Math.toIntExact(in.unsigned());
        if (planLength == 0) {
            return null;
        }
        int at = in.position();
        in.skip(planLength - 1);
        return text(at, planLength - 1, null);
    }

    /** Passes over a figure's seven numbers after its hour. */
    private static void skipNumbers(VarBytes.Reader in) {
        for (int i = 0; i < 7; i++) {
            in.unsigned();
        }
    }
}

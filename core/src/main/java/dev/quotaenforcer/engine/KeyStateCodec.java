package dev.quotaenforcer.engine;

import dev.quotaenforcer.engine.VarBytes.Reader;
import dev.quotaenforcer.engine.VarBytes.Writer;
import dev.quotaenforcer.limit.BucketLevel;
import dev.quotaenforcer.limit.PolicyState;
import dev.quotaenforcer.limit.RequestLog;
import dev.quotaenforcer.limit.SlidingCounts;
import dev.quotaenforcer.limit.WindowCount;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The compact binary form of a {@link KeyState}, as stored in RocksDB and its changelog.
 *
 * <p>Layout (version 1): a version byte; the key's last-seen time as a zigzag varint; the seconds
 * from last-seen to idle as a varint; then, until the end, one slot per policy: its 4-byte tag, a
 * type byte (low bit: denying), the milliseconds from the policy's own last decision to last-seen
 * (0 unless a denial left it behind), and the type's fields as varints relative to last-seen. Window
 * starts are whole seconds (windows are whole seconds, aligned to the epoch), so they are stored as
 * seconds back from last-seen. A sliding-window counter plus an hourly quota takes 26 to 28 bytes.
 *
 * <p>Version 2 is written only for a key with a grant or an operator's block, so other keys keep
 * the version 1 form and size, and states stored before commands existed still decode. After the
 * idle field it inserts: the number of grants, each as its 4-byte tag, the amount and the
 * milliseconds from last-seen to its end (varints); then the block as one varint: 0 for none, 1 for
 * a block without end, else 1 plus the milliseconds from last-seen to its end. The slots follow.
 */
public final class KeyStateCodec {

    static final byte VERSION = 1;
    /** The version of states with grants or a block. */
    static final byte VERSION_WITH_COMMANDS = 2;
    private static final int NO_BLOCK = 0;
    private static final int BLOCK_WITHOUT_END = 1;
    private static final int WINDOW_COUNT = 2;
    private static final int SLIDING_COUNTS = 4;
    private static final int REQUEST_LOG = 6;
    private static final int BUCKET_LEVEL = 8;

    private KeyStateCodec() {
    }

    public static byte[] encode(KeyState state) {
        Writer out = new Writer();
        encode(state, out);
        return out.toByteArray();
    }

    /** Appends the state's bytes, as {@link #encode(KeyState)} returns them, to {@code out}. */
    public static void encode(KeyState state, Writer out) {
        out.write(state.hasCommands() ? VERSION_WITH_COMMANDS : VERSION);
        long lastSeen = state.lastSeen();
        long lastSecond = Math.floorDiv(lastSeen, 1000L);
        out.signed(lastSeen);
        out.unsigned(-Math.floorDiv(-(Math.max(state.idleFrom(), lastSeen) - lastSeen), 1000L));
        if (state.hasCommands()) {
            writeCommands(out, state);
        }
        List<KeyState.Slot> slots = state.slots();
        for (int s = 0; s < slots.size(); s++) {
            KeyState.Slot slot = slots.get(s);
            out.fixedInt(slot.tag());
            PolicyState policyState = slot.state();
            int flag = policyState.denying() ? 1 : 0;
            if (policyState instanceof WindowCount w) {
                out.write(WINDOW_COUNT | flag);
                out.unsigned(lastSeen - w.updatedAt());
                out.unsigned(lastSecond - w.windowStart() / 1000);
                out.unsigned(w.used());
            } else if (policyState instanceof SlidingCounts c) {
                out.write(SLIDING_COUNTS | flag);
                out.unsigned(lastSeen - c.updatedAt());
                out.unsigned(lastSecond - c.windowStart() / 1000);
                out.unsigned(c.previous());
                out.unsigned(c.current());
            } else if (policyState instanceof RequestLog log) {
                out.write(REQUEST_LOG | flag);
                out.unsigned(lastSeen - log.updatedAt());
                out.unsigned(log.size());
                long previous = lastSeen;
                for (int i = log.size() - 1; i >= 0; i--) {
                    out.unsigned(previous - log.times()[i]);
                    out.unsigned(log.costs()[i]);
                    previous = log.times()[i];
                }
            } else if (policyState instanceof BucketLevel b) {
                out.write(BUCKET_LEVEL | flag);
                out.unsigned(b.level());
                out.unsigned(lastSeen - b.updatedAt());
            }
        }
    }

    private static void writeCommands(Writer out, KeyState state) {
        long lastSeen = state.lastSeen();
        out.unsigned(state.grants().size());
        for (KeyState.Grant grant : state.grants()) {
            out.fixedInt(grant.tag());
            out.unsigned(grant.amount());
            out.unsigned(grant.until() - lastSeen);
        }
        long until = state.blockedUntil();
        if (until == KeyState.NOT_BLOCKED) {
            out.unsigned(NO_BLOCK);
        } else if (until == KeyState.BLOCKED_WITHOUT_END) {
            out.unsigned(BLOCK_WITHOUT_END);
        } else {
            out.unsigned(Math.addExact(until - lastSeen, 1));
        }
    }

    /** Reads a state written by {@link #encode}; throws {@link IllegalArgumentException} on anything else. */
    public static KeyState decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    /** Reads the state in {@code bytes[from, to)}, as {@link #decode(byte[])} reads a whole array. */
    public static KeyState decode(byte[] bytes, int from, int to) {
        Reader in = new Reader(bytes, from, to);
        int version = version(in);
        long lastSeen = in.signed();
        long lastSecond = Math.floorDiv(lastSeen, 1000L);
        long idleFrom = idleFrom(lastSeen, in.unsigned());
        List<KeyState.Grant> grants = List.of();
        long blockedUntil = KeyState.NOT_BLOCKED;
        if (version == VERSION_WITH_COMMANDS) {
            long count = in.unsigned();
            List<KeyState.Grant> read = new ArrayList<>(0);
            for (long i = 0; i < count; i++) {
                int tag = in.fixedInt();
                long amount = in.unsigned();
                read.add(new KeyState.Grant(tag, amount, lastSeen + in.unsigned()));
            }
            grants = read;
            long block = in.unsigned();
            blockedUntil = block == NO_BLOCK ? KeyState.NOT_BLOCKED
                    : block == BLOCK_WITHOUT_END ? KeyState.BLOCKED_WITHOUT_END : lastSeen + block - 1;
        }
        // Read into an array the state's list is made of, not a list that its record would copy: decoded per decision.
        KeyState.Slot[] slots = new KeyState.Slot[2];
        int count = 0;
        while (in.hasMore()) {
            int tag = in.fixedInt();
            int type = in.read();
            boolean denying = (type & 1) == 1;
            PolicyState state = switch (type & ~1) {
                case WINDOW_COUNT -> {
                    long updatedAt = lastSeen - in.unsigned();
                    yield new WindowCount((lastSecond - in.unsigned()) * 1000, in.unsigned(), updatedAt, denying);
                }
                case SLIDING_COUNTS -> {
                    long updatedAt = lastSeen - in.unsigned();
                    long start = (lastSecond - in.unsigned()) * 1000;
                    yield new SlidingCounts(start, in.unsigned(), in.unsigned(), updatedAt, denying);
                }
                case REQUEST_LOG -> readLog(in, lastSeen, denying);
                case BUCKET_LEVEL -> {
                    long level = in.unsigned();
                    yield new BucketLevel(level, lastSeen - in.unsigned(), denying);
                }
                default -> throw new IllegalArgumentException("unknown policy state type " + type);
            };
            if (count == slots.length) {
                slots = Arrays.copyOf(slots, count * 2);
            }
            slots[count++] = new KeyState.Slot(tag, state);
        }
        return new KeyState(lastSeen, idleFrom, List.of(count == slots.length ? slots : Arrays.copyOf(slots, count)), grants,
                blockedUntil);
    }

    /** The idle-from time alone, without decoding the policies: what expiry needs. */
    public static long idleFrom(byte[] bytes) {
        return idleFrom(bytes, 0, bytes.length);
    }

    /** The idle-from time of the state in {@code bytes[from, to)}. */
    public static long idleFrom(byte[] bytes, int from, int to) {
        Reader in = new Reader(bytes, from, to);
        version(in);
        long lastSeen = in.signed();
        return idleFrom(lastSeen, in.unsigned());
    }

    private static int version(Reader in) {
        int version = in.read();
        if (version != VERSION && version != VERSION_WITH_COMMANDS) {
            throw new IllegalArgumentException("unknown key state version " + version);
        }
        return version;
    }

    /** Last-seen plus the idle seconds, saturating: a key blocked without end is never idle. */
    private static long idleFrom(long lastSeen, long idleSeconds) {
        return idleSeconds > (Long.MAX_VALUE - Math.max(0, lastSeen)) / 1000 ? Long.MAX_VALUE : lastSeen + idleSeconds * 1000;
    }

    private static RequestLog readLog(Reader in, long lastSeen, boolean denying) {
        long updatedAt = lastSeen - in.unsigned();
        int size = Math.toIntExact(in.unsigned());
        long[] times = new long[size];
        long[] costs = new long[size];
        long previous = lastSeen;
        for (int i = size - 1; i >= 0; i--) {
            times[i] = previous - in.unsigned();
            costs[i] = in.unsigned();
            previous = times[i];
        }
        return new RequestLog(times, costs, updatedAt, denying);
    }
}

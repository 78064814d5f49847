package dev.quotaenforcer.topology;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The request ids a task remembers, each with its record time and encoded decision, appended to
 * chunks of bytes in the order remembered and found through an open-addressing table of their
 * positions and hashes. A remembered id costs its UTF-8 bytes and its decision's, 16 bytes more in its
 * chunk and 16 to 32 of table, and the garbage collector sees a few large arrays instead of five small
 * objects per id, which it copied at every young collection while the dedup window kept them alive.
 */
final class RequestIdIndex {

    /** The bytes of a chunk ({@link #chunkBytes}); an entry larger than this gets a chunk of its own size. */
    static final int CHUNK_BYTES = chunkBytes();
    /** A chunk's size where no G1 heap region sets it. */
    private static final int DEFAULT_CHUNK_BYTES = 256 * 1024;
    /** The largest region a chunk is fitted to; G1 picks at most 32 MiB by itself. */
    private static final long MAX_REGION_BYTES = 32L * 1024 * 1024;
    /** Room left in a region for an array's header. */
    private static final int ARRAY_HEADER_ROOM = 64;
    private static final int MIN_SLOTS = 1024;
    /**
     * A slot's low bits: where its entry starts in its chunk (chunks are under 32 MiB, and an entry larger
     * than a chunk starts one of its own)...
     */
    private static final int OFFSET_BITS = 25;
    /**
     * ...then its chunk's sequence number modulo this many bits (4,096 chunks: 1 GiB of ids per task in
     * chunks of 256 KiB, more under G1)...
     */
    private static final int SEQUENCE_BITS = 12;
    /**
     * ...then the id's tag: up to this many bits of its hash, under a bit always set, so no slot in use is
     * 0. The home slot is the tag's low bits, so in a table of 2^k slots the other 26 - k tell ids of one
     * home apart: at a million ids (2^21 slots) a new id's lookup reads a chunk for nothing once in about
     * 60, against once in about 16 with 24 bits.
     */
    static final int TAG_HASH_BITS = 26;
    private static final int POSITION_BITS = OFFSET_BITS + SEQUENCE_BITS;
    private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    private static final long SEQUENCE_MASK = (1L << SEQUENCE_BITS) - 1;
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    /** The most chunks alive at once, so the sequence numbers in the slots tell them apart. */
    static final int MAX_CHUNKS = 1 << SEQUENCE_BITS;
    /** An entry's fixed part: the id's length, the time and the decision's length. */
    private static final int FIXED_BYTES = 4 + 8 + 4;

    /** What is remembered of an id. */
    record Remembered(long time, byte[] decision) {
    }

    /** A chunk of entries, written up to {@code used}. */
    private static final class Chunk {
        final byte[] bytes;
        int used;

        Chunk(int size) {
            bytes = new byte[size];
        }
    }

    /** Keyed per instance: ids crafted to collide, turning each lookup into a walk over the table, cannot be made. */
    private final KeyedHash keyedHash = new KeyedHash();
    /** The bits of an id's hash its slot keeps. */
    private final int tagHashMask;
    private final int maxChunks;
    /** The live chunks, oldest first; chunk i has the sequence number {@code firstSequence + i}. */
    private final List<Chunk> chunks = new ArrayList<>();
    private long firstSequence;
    /** Where the oldest entry starts in the first chunk. */
    private int headOffset;
    /**
     * A long per slot: 0, or the newest entry of one id as its tag, its chunk's sequence number and its
     * offset. A probe compares the tag before it reads the id from its chunk (a cache miss), and a resize
     * or removal finds an entry's home slot from it without hashing the id again. Eight bytes a slot, not
     * sixteen: at a million ids a task's table is 16 MiB, not 32 (a cache miss per lookup either way).
     */
    private long[] table = new long[MIN_SLOTS];
    private int ids;
    /**
     * The id last looked up and its hash: a request's id is looked up, then remembered, and its hash
     * is worked out once for both. Matched by identity, as ids are never changed once made.
     */
    private byte[] lastLookedUp;
    private int lastHash;
    /** The chunk the last entry was appended to, and where the entry starts in it. */
    private Chunk lastAppended;
    private int lastAppendedAt;

    RequestIdIndex() {
        this(TAG_HASH_BITS, MAX_CHUNKS, 0);
    }

    /**
     * An index whose slots keep {@code tagHashBits} of each id's hash, which keeps at most {@code maxChunks}
     * chunks and numbers its first chunk {@code firstSequence}: tests reach a table larger than the tags
     * cover, the chunk limit and sequence numbers past the slots' bits with it.
     */
    RequestIdIndex(int tagHashBits, int maxChunks, long firstSequence) {
        if (tagHashBits < 1 || tagHashBits > TAG_HASH_BITS || maxChunks < 2 || maxChunks > MAX_CHUNKS) {
            throw new IllegalArgumentException("tag bits " + tagHashBits + ", chunks " + maxChunks);
        }
        this.tagHashMask = (1 << tagHashBits) - 1;
        this.maxChunks = maxChunks;
        this.firstSequence = firstSequence;
    }

    /**
     * Under G1, just under one heap region: an array larger than half a region is allocated straight
     * into the old generation and never copied, and a chunk lives as long as the dedup window, while
     * as an ordinary array it was copied at every young collection until it was promoted. Other
     * collectors, or a G1 region this cannot read, get {@value #DEFAULT_CHUNK_BYTES} bytes.
     */
    static int chunkBytes() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (hotspot != null && Boolean.parseBoolean(hotspot.getVMOption("UseG1GC").getValue())) {
                long region = Long.parseLong(hotspot.getVMOption("G1HeapRegionSize").getValue());
                if (region > DEFAULT_CHUNK_BYTES && region <= MAX_REGION_BYTES) {
                    return (int) region - ARRAY_HEADER_ROOM;
                }
            }
        } catch (RuntimeException e) {
            // No such option on this JVM: the default size serves.
        }
        return DEFAULT_CHUNK_BYTES;
    }

    /** Remembers {@code id} (its UTF-8 bytes), replacing what was remembered of it before. */
    void put(byte[] id, long time, byte[] decision) {
        long position = append(id, time, decision);
        int hash = id == lastLookedUp ? lastHash : hash(id, 0, id.length);
        int slot = find(hash, id, 0, id.length);
        if (table[slot] == 0) {
            ids++;
        }
        table[slot] = slotValue(hash, position);
        if (ids * 2L > table.length) {
            resize(table.length * 2);
        }
    }

    /**
     * The bytes the last {@link #put} wrote its entry into ({@link #writeEntry}): what is written there is
     * never written over, so a {@link RequestIdBatch} can hold entries as a run of them.
     */
    byte[] lastEntryBytes() {
        return lastAppended.bytes;
    }

    /** Where in {@link #lastEntryBytes} the last {@link #put}'s entry starts. */
    int lastEntryAt() {
        return lastAppendedAt;
    }

    /** Where in {@link #lastEntryBytes} the last {@link #put}'s entry ends: nothing was appended after it. */
    int lastEntryEnd() {
        return lastAppended.used;
    }

    /** What is remembered of {@code id} (its UTF-8 bytes), else null. */
    Remembered get(byte[] id) {
        lastLookedUp = id;
        lastHash = hash(id, 0, id.length);
        long position = table[find(lastHash, id, 0, id.length)];
        if (position == 0) {
            return null;
        }
        Chunk chunk = chunk(position);
        int offset = offset(position);
        int idLength = readInt(chunk.bytes, offset);
        int at = offset + 4 + idLength;
        long time = readLong(chunk.bytes, at);
        int decisionLength = readInt(chunk.bytes, at + 8);
        return new Remembered(time, Arrays.copyOfRange(chunk.bytes, at + 12, at + 12 + decisionLength));
    }

    /** The number of ids remembered. */
    int size() {
        return ids;
    }

    boolean isEmpty() {
        return chunks.isEmpty();
    }

    /** The time of the oldest entry; only when not {@link #isEmpty()}. */
    long oldestTime() {
        byte[] bytes = chunks.get(0).bytes;
        return readLong(bytes, headOffset + 4 + readInt(bytes, headOffset));
    }

    /** Forgets the oldest entry: its id too, unless the id was remembered again since. */
    void forgetOldest() {
        Chunk first = chunks.get(0);
        int idLength = readInt(first.bytes, headOffset);
        int slot = find(hash(first.bytes, headOffset + 4, idLength), first.bytes, headOffset + 4, idLength);
        if ((table[slot] & POSITION_MASK) == position(firstSequence, headOffset)) {
            remove(slot);
            ids--;
            if (ids * 8L < table.length && table.length > MIN_SLOTS) {
                resize(table.length / 2);
            }
        }
        headOffset += FIXED_BYTES + idLength + readInt(first.bytes, headOffset + 4 + idLength + 8);
        if (headOffset == first.used) {
            // Even the chunk still appended to: what was written into a chunk is never written over.
            chunks.remove(0);
            firstSequence++;
            headOffset = 0;
        }
    }

    private long append(byte[] id, long time, byte[] decision) {
        int length = entryBytes(id, decision);
        Chunk last = chunks.isEmpty() ? null : chunks.get(chunks.size() - 1);
        if (last == null || last.bytes.length - last.used < length) {
            while (chunks.size() == maxChunks) {
                // Gigabytes of ids at the default: the oldest are forgotten early rather than two chunks share a number.
                forgetOldest();
            }
            last = new Chunk(Math.max(CHUNK_BYTES, length));
            chunks.add(last);
        }
        int offset = last.used;
        last.used = writeEntry(last.bytes, offset, id, time, decision);
        lastAppended = last;
        lastAppendedAt = offset;
        return position(firstSequence + chunks.size() - 1, offset);
    }

    /**
     * Writes an entry into {@code bytes} at {@code at}, as chunks and {@link RequestIdBatch}es hold them:
     * the id's length and bytes, the time, the decision's length and bytes (big-endian). Returns where it ends.
     */
    static int writeEntry(byte[] bytes, int at, byte[] id, long time, byte[] decision) {
        writeInt(bytes, at, id.length);
        System.arraycopy(id, 0, bytes, at + 4, id.length);
        writeLong(bytes, at + 4 + id.length, time);
        writeInt(bytes, at + 12 + id.length, decision.length);
        System.arraycopy(decision, 0, bytes, at + FIXED_BYTES + id.length, decision.length);
        return at + FIXED_BYTES + id.length + decision.length;
    }

    /** The bytes of an entry of {@code id} and {@code decision}. */
    static int entryBytes(byte[] id, byte[] decision) {
        return FIXED_BYTES + id.length + decision.length;
    }

    private long slotValue(int hash, long position) {
        return (long) (hash & tagHashMask | 1 << TAG_HASH_BITS) << POSITION_BITS | position;
    }

    /** Where a hash's probe starts in a table of {@code mask + 1} slots. */
    private static int home(int hash, int mask) {
        return hash & mask;
    }

    /**
     * The home of the entry in a slot: from its tag while the table is no larger than the tag's hash bits
     * reach, else from its id's hash again.
     */
    private int homeOf(long value, int mask) {
        if (mask <= tagHashMask) {
            return (int) (value >>> POSITION_BITS) & mask;
        }
        Chunk chunk = chunk(value);
        int offset = offset(value);
        return home(hash(chunk.bytes, offset + 4, readInt(chunk.bytes, offset)), mask);
    }

    /**
     * The index in {@link #table} of the slot holding the id in {@code id[from, from + length)}, or of
     * the empty slot where it would go.
     */
    private int find(int hash, byte[] id, int from, int length) {
        int mask = table.length - 1;
        long tag = slotValue(hash, 0) >>> POSITION_BITS;
        for (int slot = home(hash, mask); ; slot = (slot + 1) & mask) {
            long value = table[slot];
            if (value == 0 || value >>> POSITION_BITS == tag && holds(value, id, from, length)) {
                return slot;
            }
        }
    }

    private boolean holds(long position, byte[] id, int from, int length) {
        Chunk chunk = chunk(position);
        int offset = offset(position);
        return readInt(chunk.bytes, offset) == length
                && Arrays.equals(chunk.bytes, offset + 4, offset + 4 + length, id, from, from + length);
    }

    /** Empties a slot, moving later entries of its run back so that every lookup still reaches them. */
    private void remove(int emptied) {
        int mask = table.length - 1;
        int hole = emptied;
        for (int slot = (hole + 1) & mask; table[slot] != 0; slot = (slot + 1) & mask) {
            int home = homeOf(table[slot], mask);
            // The entry may move to the hole unless its home lies cyclically after the hole, up to its slot.
            boolean homeAfterHole = hole <= slot ? home > hole && home <= slot : home > hole || home <= slot;
            if (!homeAfterHole) {
                table[hole] = table[slot];
                hole = slot;
            }
        }
        table[hole] = 0;
    }

    private void resize(int slots) {
        long[] old = table;
        table = new long[slots];
        int mask = slots - 1;
        for (long value : old) {
            if (value != 0) {
                int slot = homeOf(value, mask);
                while (table[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                table[slot] = value;
            }
        }
    }

    private int hash(byte[] bytes, int from, int length) {
        return (int) keyedHash.of(bytes, from, length);
    }

    /** The chunk of a position or slot: sequence numbers modulo {@link #MAX_CHUNKS} tell the live chunks apart. */
    private Chunk chunk(long position) {
        return chunks.get((int) ((position >>> OFFSET_BITS) - firstSequence & SEQUENCE_MASK));
    }

    private static int offset(long position) {
        return (int) (position & OFFSET_MASK);
    }

    private static long position(long sequence, int offset) {
        return (sequence & SEQUENCE_MASK) << OFFSET_BITS | offset;
    }

    private static int readInt(byte[] bytes, int at) {
        return (bytes[at] & 0xff) << 24 | (bytes[at + 1] & 0xff) << 16 | (bytes[at + 2] & 0xff) << 8 | bytes[at + 3] & 0xff;
    }

    private static long readLong(byte[] bytes, int at) {
        return (long) readInt(bytes, at) << 32 | readInt(bytes, at + 4) & 0xffffffffL;
    }

    private static void writeInt(byte[] bytes, int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }

    private static void writeLong(byte[] bytes, int at, long value) {
        writeInt(bytes, at, (int) (value >>> 32));
        writeInt(bytes, at + 4, (int) value);
    }
}

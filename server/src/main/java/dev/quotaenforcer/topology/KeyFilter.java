package dev.quotaenforcer.topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A Bloom filter of byte keys, for a store's gets of keys it does not hold: a key never added is
 * almost always answered "absent" without the store, and a key added is never answered so. Each key
 * sets three bits of one 64-bit word, so a lookup reads one word. Of keys never added, 1% to 4% are
 * answered "may be present" once the filter holds as many keys as it was sized for, and under 1% while
 * it holds half as many (as a filter sized for twice the keys it was built from does).
 *
 * <p>One thread adds; any may look up. A bit set is seen by a thread that learnt of the key's write
 * through a happens-before edge after it (the catalog's change count, for the key catalog).
 */
final class KeyFilter {

    /** Bits per key at capacity, at least: the word count rounds up to a power of two. */
    static final int BITS_PER_KEY = 8;
    /** The fewest keys a filter is sized for. */
    static final int MIN_CAPACITY = 1024;
    /** The most words (128 MiB): beyond 134M keys a filter answers "may be present" more often, never wrongly. */
    private static final long MAX_WORDS = 1L << 24;
    private static final long GOLDEN = 0x9e3779b97f4a7c15L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * Keyed per filter: keys crafted to share bits could only make more lookups go to the store, but
     * they cannot be crafted for a filter whose hash they do not know.
     */
    private final long seed = ThreadLocalRandom.current().nextLong();
    private final long[] words;
    private final long capacity;
    private long added;

    /** A filter for {@code capacity} keys (at least {@link #MIN_CAPACITY}): past them it answers "may be present" more often. */
    KeyFilter(long capacity) {
        this.capacity = Math.max(MIN_CAPACITY, capacity);
        long wanted = Math.min(MAX_WORDS, this.capacity * BITS_PER_KEY / Long.SIZE);
        this.words = new long[Integer.highestOneBit((int) wanted - 1) << 1];
    }

    void add(byte[] key) {
        add(hash(key));
    }

    /** False only when {@code key} was never added. */
    boolean mightContain(byte[] key) {
        return mightContain(hash(key));
    }

    /**
     * Adds a text key by its {@link String#hashCode}, which the lookups of the key's maps compute anyway:
     * keys sharing one are told apart by the store, not the filter.
     */
    void add(String key) {
        add(hash(key));
    }

    /** False only when {@code key} was never added as text. */
    boolean mightContain(String key) {
        return mightContain(hash(key));
    }

    long capacity() {
        return capacity;
    }

    private void add(long hash) {
        words[(int) hash & (words.length - 1)] |= bits(hash);
        added++;
    }

    private boolean mightContain(long hash) {
        long bits = bits(hash);
        return (words[(int) hash & (words.length - 1)] & bits) == bits;
    }

    /** Whether more keys were added than the filter was sized for (a key added again counts again). */
    boolean full() {
        return added > capacity;
    }

    /** Three bits from the hash's upper half: its word is chosen by the lower. */
    private static long bits(long hash) {
        return 1L << (hash >>> 40) | 1L << (hash >>> 46) | 1L << (hash >>> 52);
    }

    private long hash(byte[] key) {
        long h = seed ^ key.length;
        int at = 0;
        for (; at + Long.BYTES <= key.length; at += Long.BYTES) {
            h = fold((long) LONGS.get(key, at) ^ seed, h ^ GOLDEN);
        }
        long tail = 0;
        for (int shift = 0; at < key.length; at++, shift += Byte.SIZE) {
            tail |= (key[at] & 0xffL) << shift;
        }
        return fold(fold(tail ^ seed, h ^ GOLDEN), seed ^ GOLDEN);
    }

    private long hash(String key) {
        return fold(key.hashCode() ^ seed, seed ^ GOLDEN);
    }

    private static long fold(long a, long b) {
        return a * b ^ Math.multiplyHigh(a, b);
    }
}

package dev.quotaenforcer.topology;

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

    /** Keyed per filter: keys crafted to share bits would only send more gets to the store, and cannot be made. */
    private final KeyedHash keyedHash = new KeyedHash();
    private final long[] words;
    private final long capacity;
    private long added;

    /** A filter for {@code capacity} keys, at least {@link #MIN_CAPACITY}: past them, more answers are "may be present". */
    KeyFilter(long capacity) {
        this.capacity = Math.max(MIN_CAPACITY, capacity);
        long wanted = Math.min(MAX_WORDS, this.capacity * BITS_PER_KEY / Long.SIZE);
        this.words = new long[Integer.highestOneBit((int) wanted - 1) << 1];
    }

    void add(byte[] key) {
        add(keyedHash.of(key, 0, key.length));
    }

    /** False only when {@code key} was never added. */
    boolean mightContain(byte[] key) {
        return mightContain(keyedHash.of(key, 0, key.length));
    }

    /**
     * Adds a text key by its {@link String#hashCode}, which the lookups of the key's maps compute anyway:
     * keys sharing one are told apart by the store, not the filter.
     */
    void add(String key) {
        add(keyedHash.of(key));
    }

    /** False only when {@code key} was never added as text. */
    boolean mightContain(String key) {
        return mightContain(keyedHash.of(key));
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

}

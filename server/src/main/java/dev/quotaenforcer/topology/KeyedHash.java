package dev.quotaenforcer.topology;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A 64-bit hash of bytes keyed per instance, so keys crafted to collide (and turn a table's lookups
 * into walks, or a filter's answers into "may be present") cannot be computed in advance: each word of
 * the bytes is mixed with a key before it is multiplied.
 */
final class KeyedHash {

    private static final long GOLDEN = 0x9e3779b97f4a7c15L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final long seed = ThreadLocalRandom.current().nextLong();
    private final long wordKey = ThreadLocalRandom.current().nextLong();

    /** Eight bytes at a time: each word, mixed with the key, is multiplied into the state to 128 bits and folded. */
    long of(byte[] bytes, int from, int length) {
        long h = seed ^ length;
        int at = from;
        int end = from + length;
        for (; at + Long.BYTES <= end; at += Long.BYTES) {
            h = fold((long) LONGS.get(bytes, at) ^ wordKey, h ^ GOLDEN);
        }
        long tail = 0;
        for (int shift = 0; at < end; at++, shift += Byte.SIZE) {
            tail |= (bytes[at] & 0xffL) << shift;
        }
        h = fold(tail ^ wordKey, h ^ GOLDEN);
        return fold(h, seed ^ GOLDEN);
    }

    /** A text's {@link String#hashCode} spread over 64 bits: texts sharing one share this too. */
    long of(String text) {
        return fold(text.hashCode() ^ seed, seed ^ GOLDEN);
    }

    private static long fold(long a, long b) {
        return a * b ^ Math.multiplyHigh(a, b);
    }
}

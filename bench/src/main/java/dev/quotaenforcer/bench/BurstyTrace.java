package dev.quotaenforcer.bench;

import java.time.Instant;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A seeded, reproducible bursty request trace for many keys, against a limit of {@code limit} per
 * {@code windowMs}. Each key alternates quiet stretches below the limit's sustained rate with bursts
 * well above it, and sometimes sends a volley of requests in the same millisecond, so every key
 * keeps crossing its limit: the traffic where an approximation can be wrong. Keys are generated
 * independently from the seed, so a key's requests need not be held in memory with the others'.
 */
public final class BurstyTrace {

    /** The trace starts shortly after a round hour, as the seed examples do. */
    static final long START = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();

    private final long seed;
    private final int keys;
    private final long durationMs;
    private final long limit;
    private final long windowMs;

    public BurstyTrace(long seed, int keys, long durationMs, long limit, long windowMs) {
        if (keys <= 0 || durationMs <= 0 || limit <= 0 || windowMs <= 0) {
            throw new IllegalArgumentException("keys, duration, limit and window must be positive");
        }
        this.seed = seed;
        this.keys = keys;
        this.durationMs = durationMs;
        this.limit = limit;
        this.windowMs = windowMs;
    }

    public int keys() {
        return keys;
    }

    /** The request times of {@code key}, in order (equal times are a volley); the same seed gives the same times. */
    public long[] times(int key) {
        SplittableRandom random = new SplittableRandom(mix(seed, key));
        double sustainedPerMs = (double) limit / windowMs;
        double quietRate = sustainedPerMs * (0.05 + 0.85 * random.nextDouble());
        double burstRate = sustainedPerMs * (1.5 + 4.5 * random.nextDouble());
        double meanBurstMs = windowMs * (0.2 + 0.8 * random.nextDouble());
        double meanQuietMs = windowMs * (1 + 4 * random.nextDouble());
        // Keys start at different offsets into the aligned window, as real clients do.
        long time = START + random.nextLong(windowMs);
        long end = time + durationMs;
        boolean bursting = random.nextBoolean();
        long phaseEnd = time + exponential(random, bursting ? meanBurstMs : meanQuietMs);
        long[] times = new long[1024];
        int count = 0;
        while (true) {
            time += exponential(random, 1 / (bursting ? burstRate : quietRate));
            while (time >= phaseEnd) {
                bursting = !bursting;
                phaseEnd += exponential(random, bursting ? meanBurstMs : meanQuietMs);
            }
            if (time >= end) {
                return Arrays.copyOf(times, count);
            }
            int volley = bursting && random.nextInt(10) == 0 ? 2 + random.nextInt(9) : 1;
            for (int i = 0; i < volley; i++) {
                if (count == times.length) {
                    times = Arrays.copyOf(times, count * 2);
                }
                times[count++] = time;
            }
        }
    }

    /** Whole milliseconds of an exponential wait with the given mean, at least 0. */
    private static long exponential(SplittableRandom random, double mean) {
        return (long) (-Math.log(1 - random.nextDouble()) * mean);
    }

    /** A well-mixed per-key seed (SplitMix64 finalizer), so neighbouring keys get unrelated traffic. */
    private static long mix(long seed, int key) {
        long z = seed + 0x9E3779B97F4A7C15L * (key + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

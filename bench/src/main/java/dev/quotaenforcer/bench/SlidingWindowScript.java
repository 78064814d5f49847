package dev.quotaenforcer.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * The classic Redis + Lua sliding window counter ({@code bench/sliding-window-counter.lua}), loaded
 * once and run with EVALSHA, as a Redis-backed gateway limits its requests.
 */
final class SlidingWindowScript {

    static final String SOURCE = load("/bench/sliding-window-counter.lua");

    private final long limit;
    private final long windowMs;

    SlidingWindowScript(long limit, long windowMs) {
        if (limit <= 0 || windowMs <= 0) {
            throw new IllegalArgumentException("limit and window must be positive: " + limit + ", " + windowMs);
        }
        this.limit = limit;
        this.windowMs = windowMs;
    }

    /** Loads the script into the server's script cache and returns its SHA-1 for EVALSHA. */
    static String register(Jedis jedis) {
        return jedis.scriptLoad(SOURCE);
    }

    /**
     * The counters the script reads for {@code apiKey} at {@code nowMs}: the current window's and the
     * previous one's, named by their start and hash-tagged by the key so both land on one cluster slot.
     */
    List<String> keys(String apiKey, long nowMs) {
        long start = Math.floorDiv(nowMs, windowMs) * windowMs;
        String prefix = "swc:{" + apiKey + "}:";
        return List.of(prefix + start, prefix + (start - windowMs));
    }

    /** Decides one request of {@code cost} at {@code nowMs}: true when allowed (and counted). */
    boolean allow(Jedis jedis, String sha, String apiKey, long nowMs, long cost) {
        Object answer = jedis.evalsha(sha, keys(apiKey, nowMs),
                List.of(Long.toString(limit), Long.toString(windowMs), Long.toString(nowMs), Long.toString(cost)));
        if (!(answer instanceof Long verdict)) {
            throw new IllegalStateException("the script answered " + answer + " instead of 0 or 1");
        }
        return verdict == 1L;
    }

    private static String load(String resource) {
        try (InputStream in = SlidingWindowScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

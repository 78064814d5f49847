package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The worked numbers of the two seed articles, reproduced exactly. */
class SeedExamplesTest {

    private static final long NOON = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();

    /** Sends {@code count} requests of cost 1 at {@code time}, threading the state; counts admissions. */
    private static final class Client {
        private final LimitPolicy policy;
        private PolicyState state;
        private Verdict last;

        Client(LimitPolicy policy) {
            this.policy = policy;
        }

        int send(int count, long time) {
            int allowed = 0;
            for (int i = 0; i < count; i++) {
                PolicyOutcome outcome = policy.decide(state, time, 1);
                state = outcome.state();
                last = outcome.verdict();
                if (last.allowed()) {
                    allowed++;
                }
            }
            return allowed;
        }
    }

    private static LimitPolicy perMinute(Algorithm algorithm, int limit) {
        return LimitPolicy.window("per-minute", algorithm, limit, Duration.ofMinutes(1));
    }

    @Test
    void fixedWindowAdmitsBothBatchesAcrossTheBoundary() {
        Client client = new Client(perMinute(Algorithm.FIXED_WINDOW, 100));

        assertEquals(100, client.send(100, NOON + 59_000));
        assertEquals(100, client.send(100, NOON + 60_000));
    }

    @Test
    void slidingWindowCounterDeniesSecondBatchAtWindowBoundary() {
        Client client = new Client(perMinute(Algorithm.SLIDING_WINDOW_COUNTER, 100));

        assertEquals(100, client.send(100, NOON + 59_000));
        assertEquals(0, client.send(100, NOON + 60_000));
    }

    @Test
    void slidingWindowLogDeniesSecondBatchAtWindowBoundary() {
        Client client = new Client(perMinute(Algorithm.SLIDING_WINDOW_LOG, 100));

        assertEquals(100, client.send(100, NOON + 59_000));
        assertEquals(0, client.send(100, NOON + 60_000));
    }

    @Test
    void slidingWindowCounterWeighsPreviousWindowByOverlap() {
        // 84 requests in the previous minute, 36 so far in this one, 15 s in: 84 x 0.75 + 36 = 99.
        LimitPolicy policy = perMinute(Algorithm.SLIDING_WINDOW_COUNTER, 100);
        PolicyState state = new SlidingCounts(NOON + 60_000, 84, 36, NOON + 60_000, false);

        PolicyOutcome oneMore = policy.decide(state, NOON + 75_000, 1);
        assertTrue(oneMore.verdict().allowed());
        assertEquals(0, oneMore.verdict().remaining());

        PolicyOutcome next = policy.decide(oneMore.state(), NOON + 75_000, 1);
        assertFalse(next.verdict().allowed());
    }

    @Test
    void tokenBucketBurstsToCapacityThenRefillsAtItsRate() {
        LimitPolicy policy = LimitPolicy.bucket("burst", Algorithm.TOKEN_BUCKET, 10, RefillRate.of(2, Duration.ofSeconds(1)));
        Client client = new Client(policy);

        assertEquals(10, client.send(10, NOON));
        assertEquals(0, client.send(1, NOON));
        assertEquals(1, client.last.retryAfterSeconds(), "missing 1 token at 2 per s: ceil(0.5) = 1");
        assertEquals(6, client.send(7, NOON + 3_000), "min(10, 0 + 3 x 2) = 6 tokens at t = 3 s");
    }

    @Test
    void leakyBucketQueuesTenOfFifteenAndReleasesTheLastAboutFiveSecondsLater() {
        LimitPolicy policy = LimitPolicy.bucket("queue", Algorithm.LEAKY_BUCKET, 10, RefillRate.of(2, Duration.ofSeconds(1)));
        long lastQueuedDelay = -1;
        int queued = 0;
        int denied = 0;
        PolicyState state = null;
        for (int i = 0; i < 15; i++) {
            PolicyOutcome outcome = policy.decide(state, NOON, 1);
            state = outcome.state();
            if (outcome.verdict().allowed()) {
                queued++;
                lastQueuedDelay = outcome.verdict().delayMs();
            } else {
                denied++;
            }
        }

        assertEquals(10, queued);
        assertEquals(5, denied);
        // The first request goes out at once and each next one 500 ms later: the tenth at 4.5 s, the
        // seed's "about 10 / 2 = 5 s" once its own 0.5 s of draining is counted.
        assertEquals(4_500, lastQueuedDelay);
    }

    @Test
    void fivePerMinuteTableFixedWindowAdmitsTen() {
        Client client = new Client(perMinute(Algorithm.FIXED_WINDOW, 5));

        int allowed = client.send(5, NOON + 55_000) + client.send(5, NOON + 60_000);

        assertEquals(10, allowed);
    }

    @Test
    void fivePerMinuteTableSlidingWindowAdmitsFive() {
        Client counter = new Client(perMinute(Algorithm.SLIDING_WINDOW_COUNTER, 5));
        Client log = new Client(perMinute(Algorithm.SLIDING_WINDOW_LOG, 5));

        assertEquals(5, counter.send(5, NOON + 55_000) + counter.send(5, NOON + 60_000));
        assertEquals(5, log.send(5, NOON + 55_000) + log.send(5, NOON + 60_000));
    }

    @Test
    void fivePerMinuteTableTokenBucketAdmitsFive() {
        // 5 tokens, one more every 12 s: at second 60 only 5/12 of a token has come back.
        LimitPolicy policy = LimitPolicy.bucket("per-minute", Algorithm.TOKEN_BUCKET, 5, RefillRate.of(5, Duration.ofMinutes(1)));
        Client client = new Client(policy);

        assertEquals(5, client.send(5, NOON + 55_000) + client.send(5, NOON + 60_000));
        assertEquals(7, client.last.retryAfterSeconds(), "the next token arrives 12 s after second 55");
    }

    @Test
    void fixedWindowRetryAfterPointsAtTheNextWindow() {
        Client client = new Client(perMinute(Algorithm.FIXED_WINDOW, 5));

        client.send(6, NOON + 18_000);

        assertFalse(client.last.allowed());
        assertEquals(42, client.last.retryAfterSeconds());
        assertEquals(42, client.last.resetSeconds());
    }
}

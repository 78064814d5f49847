package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OpenLoopTest {

    private static final Duration WARMUP = Duration.ofMillis(50);
    private static final Duration MEASURED = Duration.ofMillis(200);

    @Test
    void countsOnlyRequestsAfterTheWarmUpByHowTheyWereAnswered() {
        OpenLoop.Result result = OpenLoop.run(1_000, WARMUP, MEASURED, Duration.ofSeconds(5), i -> {
            if (i % 10 == 1) {
                return CompletableFuture.completedFuture(false);
            }
            if (i % 10 == 2) {
                return CompletableFuture.failedFuture(new IllegalStateException("broken"));
            }
            return CompletableFuture.completedFuture(true);
        });

        assertEquals(200, result.sent());
        assertEquals(160, result.decided());
        assertEquals(20, result.byPolicy());
        assertEquals(20, result.failed());
        assertEquals(0, result.unanswered());
        assertEquals(180, result.latency().count());
        assertEquals(800, result.decidedPerSecond(), 1e-9);
    }

    @Test
    void chargesAStalledSenderToEveryRequestItDelayedNotJustTheOneThatStalled() {
        long stallMs = 40;
        OpenLoop.Result result = OpenLoop.run(1_000, WARMUP, MEASURED, Duration.ofSeconds(5), i -> {
            if (i == 100) {
                sleep(stallMs);
            }
            return CompletableFuture.completedFuture(true);
        });

        // Measured from when the sender answered, only request 100 would be slow. From the intended
        // send, each request due during the stall waited for it: ~40 of 200, so the p99 shows it.
        assertTrue(result.latency().p99Ms() >= stallMs / 2.0, result.toString());
        assertTrue(result.latency().maxMs() >= stallMs - 1, result.toString());
        assertTrue(result.sendLagMs() >= stallMs / 2.0, result.toString());
    }

    @Test
    void reportsRequestsNeverAnsweredWithinTheDrain() {
        OpenLoop.Result result = OpenLoop.run(1_000, Duration.ZERO, Duration.ofMillis(20), Duration.ofMillis(10),
                i -> new CompletableFuture<>());

        assertEquals(20, result.sent());
        assertEquals(20, result.unanswered());
        assertEquals(0, result.latency().count());
    }

    @Test
    void poolsTurnsIntoOneHistogramSoTheP99IsOverEveryRequestNotAnAverageOfTurns() {
        OpenLoop.Result fast = OpenLoop.run(1_000, Duration.ZERO, MEASURED, Duration.ofSeconds(5),
                i -> CompletableFuture.completedFuture(true));
        OpenLoop.Result slow = OpenLoop.run(1_000, Duration.ZERO, MEASURED, Duration.ofSeconds(5), i -> {
            if (i == 100) {
                sleep(40);
            }
            return CompletableFuture.completedFuture(true);
        });

        OpenLoop.Result pooled = OpenLoop.Result.pooled(List.of(fast, slow));

        assertEquals(fast.sent() + slow.sent(), pooled.sent());
        assertEquals(fast.decided() + slow.decided(), pooled.decided());
        assertEquals(fast.latency().count() + slow.latency().count(), pooled.latency().count());
        assertEquals(slow.latency().maxMs(), pooled.latency().maxMs());
        assertEquals(slow.sendLagMs(), pooled.sendLagMs());
        assertEquals((fast.decidedPerSecond() + slow.decidedPerSecond()) / 2, pooled.decidedPerSecond(), 1e-9);
        // About 40 of the 400 requests waited for the stall: more than 1%, so it still shows at the pooled p99.
        assertTrue(pooled.latency().p99Ms() >= 10, pooled.toString());
        assertTrue(pooled.latency().p99Ms() <= slow.latency().p99Ms(), pooled.toString());
    }

    private static void sleep(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

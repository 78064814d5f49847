package dev.quotaenforcer.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SynchronizedHistogram;

/**
 * One open-loop load: requests sent from one thread at the intended times of an {@link OpenLoopSchedule},
 * never waiting for answers, and for each sent after the warm-up the time from its intended send to its
 * answer recorded in an HdrHistogram (microseconds). A sender that falls behind sends at once what is
 * due, so its lateness is part of the latency it records.
 */
final class OpenLoop {

    /** Longer latencies are recorded as this; far beyond any timeout a scenario uses. */
    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(5);

    /** Sends request {@code index}; completes true with a real decision, false with one a failure policy made. */
    interface Sender {
        CompletionStage<Boolean> send(long index);
    }

    /**
     * What one load measured, counting only requests intended after the warm-up.
     *
     * @param byPolicy   answers a failure policy made because no decision came in time
     * @param failed     requests whose sending or deciding failed outright
     * @param unanswered requests with no answer at all by the end of the drain
     * @param sendLagMs  the furthest behind its schedule the sender got: latency it charged to itself
     * @param micros     the latencies {@code latency} summarises, kept so that turns of one load can be pooled
     */
    record Result(double offeredPerSecond, LatencySummary latency, long sent, long decided, long byPolicy, long failed,
                  long unanswered, double decidedPerSecond, double sendLagMs, Histogram micros) {

        /**
         * Turns of equal length at one load as if they were one: their latencies in one histogram, their
         * counts summed, the sender's worst lag over all of them.
         */
        static Result pooled(List<Result> turns) {
            if (turns.size() == 1) {
                return turns.get(0);
            }
            Histogram micros = new Histogram(HIGHEST_MICROS, 3);
            turns.forEach(turn -> micros.add(turn.micros()));
            return new Result(turns.get(0).offeredPerSecond(), LatencySummary.of(micros),
                    turns.stream().mapToLong(Result::sent).sum(), turns.stream().mapToLong(Result::decided).sum(),
                    turns.stream().mapToLong(Result::byPolicy).sum(), turns.stream().mapToLong(Result::failed).sum(),
                    turns.stream().mapToLong(Result::unanswered).sum(),
                    turns.stream().mapToDouble(Result::decidedPerSecond).average().orElseThrow(),
                    turns.stream().mapToDouble(Result::sendLagMs).max().orElseThrow(), micros);
        }
    }

    private OpenLoop() {
    }

    /**
     * Sends for {@code warmup} plus {@code measured}, then waits up to {@code drain} for the last
     * answers. Every answer, real or by policy, is recorded; failures are only counted.
     */
    static Result run(double perSecond, Duration warmup, Duration measured, Duration drain, Sender sender) {
        Histogram micros = new SynchronizedHistogram(HIGHEST_MICROS, 3);
        AtomicLong decided = new AtomicLong();
        AtomicLong byPolicy = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong outstanding = new AtomicLong();
        // Start a little ahead so the first intended time is not already past when the loop begins.
        OpenLoopSchedule schedule = new OpenLoopSchedule(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10), perSecond);
        long warmupCount = schedule.countWithin(warmup.toNanos());
        long total = schedule.countWithin(warmup.plus(measured).toNanos());
        long maxLag = 0;
        for (long i = 0; i < total; i++) {
            long intended = schedule.intendedNanos(i);
            long wait = intended - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            boolean recorded = i >= warmupCount;
            if (recorded) {
                maxLag = Math.max(maxLag, System.nanoTime() - intended);
            }
            if (recorded) {
                outstanding.incrementAndGet();
            }
            CompletionStage<Boolean> answer;
            try {
                answer = sender.send(i);
            } catch (RuntimeException e) {
                if (recorded) {
                    failed.incrementAndGet();
                    outstanding.decrementAndGet();
                }
                continue;
            }
            if (recorded) {
                answer.whenComplete((real, error) -> {
                    long latency = System.nanoTime() - intended;
                    if (error != null) {
                        failed.incrementAndGet();
                    } else {
                        micros.recordValue(Math.min(HIGHEST_MICROS, TimeUnit.NANOSECONDS.toMicros(latency)));
                        (real ? decided : byPolicy).incrementAndGet();
                    }
                    outstanding.decrementAndGet();
                });
            }
        }
        long deadline = System.nanoTime() + drain.toNanos();
        while (outstanding.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        Histogram recorded = micros.copy();
        return new Result(perSecond, LatencySummary.of(recorded), total - warmupCount, decided.get(), byPolicy.get(),
                failed.get(), outstanding.get(), decided.get() / (measured.toNanos() / 1e9), maxLag / 1e6, recorded);
    }
}

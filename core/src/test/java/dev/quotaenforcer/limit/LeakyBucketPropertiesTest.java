package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import org.junit.jupiter.api.Test;

/**
 * Random-traffic properties of the leaky bucket, checked against a FIFO queue drained at exactly
 * the refill rate: each admitted request starts draining when the one before it has drained.
 */
class LeakyBucketPropertiesTest {

    /**
     * The queue of admitted work, on a time scale of 1/tokens ms so that the constant drain is exact:
     * a request of cost c takes c x periodMs scaled units to drain, and a backlog of n scaled units
     * is also n/periodMs tokens of queued work.
     */
    private static final class Queue {
        private final RefillRate rate;
        private final long origin;
        private long drainedAt;

        Queue(RefillRate rate, long origin) {
            this.rate = rate;
            this.origin = origin;
        }

        private long scaled(long time) {
            return Math.multiplyExact(time - origin, rate.tokens());
        }

        /** Work still queued at {@code time}, in 1/periodMs token units. */
        long backlog(long time) {
            return Math.max(0, drainedAt - scaled(time));
        }

        /** Time the work queued at {@code time} needs to drain, rounded up to the millisecond. */
        long drainMs(long time) {
            return Limiter.ceilDiv(backlog(time), rate.tokens());
        }

        void admit(long time, long cost) {
            drainedAt = Math.max(drainedAt, scaled(time)) + Math.multiplyExact(cost, rate.periodMs());
        }
    }

    private static Queue emptyQueue(Traffic.Case c) {
        return new Queue(c.policy().refill(), c.steps().get(0).time());
    }

    @Test
    void leakyBucketNeverQueuesMoreThanItsCapacity() {
        Traffic.forEachCase(Algorithm.LEAKY_BUCKET, c -> {
            long capacityUnits = c.limit() * c.policy().refill().periodMs();
            Queue queue = emptyQueue(c);
            for (Step step : c.steps()) {
                if (step.allowed()) {
                    queue.admit(step.time(), step.cost());
                    // The queue only grows at admissions, so its peaks are right after them.
                    long queued = queue.backlog(step.time());
                    assertTrue(queued <= capacityUnits,
                            () -> "queued " + queued + " of " + capacityUnits + " units: " + c.describe(step));
                }
            }
        });
    }

    @Test
    void leakyBucketDeniesOnlyWhenTheQueueWouldOverflow() {
        Traffic.forEachCase(Algorithm.LEAKY_BUCKET, c -> {
            long periodMs = c.policy().refill().periodMs();
            long capacityUnits = c.limit() * periodMs;
            Queue queue = emptyQueue(c);
            for (Step step : c.steps()) {
                long queued = queue.backlog(step.time());
                boolean fits = step.cost() <= c.limit() && queued + step.cost() * periodMs <= capacityUnits;
                assertEquals(fits, step.allowed(),
                        () -> "queued " + queued + " of " + capacityUnits + " units: " + c.describe(step));
                if (step.allowed()) {
                    queue.admit(step.time(), step.cost());
                }
            }
        });
    }

    @Test
    void leakyBucketDelayIsTheTimeTheQueueAheadNeedsToDrain() {
        Traffic.forEachCase(Algorithm.LEAKY_BUCKET, c -> {
            Queue queue = emptyQueue(c);
            for (Step step : c.steps()) {
                if (!step.allowed()) {
                    assertEquals(0, step.verdict().delayMs(), () -> "a denied request is not held: " + c.describe(step));
                    continue;
                }
                long expected = queue.drainMs(step.time());
                assertEquals(expected, step.verdict().delayMs(), () -> c.describe(step));
                queue.admit(step.time(), step.cost());
            }
        });
    }
}

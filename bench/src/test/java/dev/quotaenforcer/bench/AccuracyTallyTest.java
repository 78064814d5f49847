package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class AccuracyTallyTest {

    private static final long MINUTE = 60_000;

    /**
     * 100 requests at 12:00:59.900 fill the window; 30 s later the counter weights them by half and
     * admits 50 of 60 more, where the exact rule (100 still inside the last minute) denies all 60.
     */
    static AccuracyTally endOfWindowBurst() {
        long[] times = new long[160];
        Arrays.fill(times, 0, 100, BurstyTrace.START + 59_900);
        Arrays.fill(times, 100, 160, BurstyTrace.START + 90_000);
        AccuracyTally tally = new AccuracyTally(100, Duration.ofMinutes(1));
        tally.replay(times);
        return tally;
    }

    @Test
    void aBurstAtTheEndOfAWindowIsWhatTheCounterMisjudges() {
        AccuracyTally tally = endOfWindowBurst();

        assertEquals(160, tally.requests());
        assertEquals(150, tally.counterAllowed());
        assertEquals(50, tally.falseAllows());
        assertEquals(0, tally.falseDenies());
        assertEquals(100, tally.logAllowed());
        assertEquals(50, tally.counterOnlyAllowed());
        assertEquals(0, tally.logOnlyAllowed());
        assertEquals(150, tally.counterMaxWindow());
        assertEquals(100, tally.logMaxWindow());
        assertEquals(1, tally.keysOverLimit());
    }

    @Test
    void evenlySpreadTrafficUnderTheLimitIsNeverMisjudged() {
        long[] times = new long[600];
        for (int i = 0; i < times.length; i++) {
            times[i] = BurstyTrace.START + i * 1_000L;
        }
        AccuracyTally tally = new AccuracyTally(100, Duration.ofMinutes(1));
        tally.replay(times);

        assertEquals(600, tally.counterAllowed());
        assertEquals(0, tally.misjudged());
        assertEquals(0, tally.decidedDifferently());
        assertEquals(60, tally.counterMaxWindow());
    }

    @Test
    void countsOfABurstyTraceAddUpAndTheLogStaysExact() {
        BurstyTrace trace = new BurstyTrace(3, 30, 3_600_000, 100, MINUTE);
        AccuracyTally tally = new AccuracyTally(100, Duration.ofMinutes(1));
        long sent = 0;
        for (int key = 0; key < trace.keys(); key++) {
            long[] times = trace.times(key);
            sent += times.length;
            tally.replay(times);
        }

        assertEquals(30, tally.keys());
        assertEquals(sent, tally.requests());
        assertEquals(tally.counterAllowed() - tally.counterOnlyAllowed() + tally.logOnlyAllowed(), tally.logAllowed());
        assertTrue(tally.misjudged() > 0 && tally.misjudged() < tally.requests(), "misjudged " + tally.misjudged());
        assertTrue(tally.nearLimitMisjudged() <= tally.misjudged() && tally.nearLimitMisjudged() <= tally.nearLimit());
        assertEquals(100, tally.logMaxWindow());
        assertTrue(tally.counterMaxWindow() > 100, "the counter never went over on a bursty trace");
    }

    @Test
    void theMostInAnyWindowCountsARequestDuringTheWindowLengthAfterIt() {
        long[] admitted = {0, 999, 1000, 1999, 1999};
        assertEquals(2, AccuracyTally.maxInWindow(admitted, 3, 1000));
        assertEquals(3, AccuracyTally.maxInWindow(admitted, 5, 1000));
        assertEquals(0, AccuracyTally.maxInWindow(admitted, 0, 1000));
    }
}

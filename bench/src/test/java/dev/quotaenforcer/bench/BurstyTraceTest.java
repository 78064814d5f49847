package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BurstyTraceTest {

    private static final long HOUR = 3_600_000;

    @Test
    void theSameSeedReplaysTheSameTrace() {
        BurstyTrace trace = new BurstyTrace(7, 10, HOUR, 100, 60_000);
        BurstyTrace again = new BurstyTrace(7, 10, HOUR, 100, 60_000);
        for (int key = 0; key < trace.keys(); key++) {
            assertArrayEquals(trace.times(key), again.times(key), "key " + key);
        }
    }

    @Test
    void anotherSeedOrKeyGivesOtherTraffic() {
        BurstyTrace trace = new BurstyTrace(7, 2, HOUR, 100, 60_000);
        assertFalse(Arrays.equals(trace.times(0), new BurstyTrace(8, 2, HOUR, 100, 60_000).times(0)));
        assertFalse(Arrays.equals(trace.times(0), trace.times(1)));
    }

    @Test
    void timesAreInOrderWithinTheDurationAndIncludeVolleysAndBursts() {
        BurstyTrace trace = new BurstyTrace(11, 20, HOUR, 100, 60_000);
        boolean volley = false;
        boolean overLimit = false;
        for (int key = 0; key < trace.keys(); key++) {
            long[] times = trace.times(key);
            assertTrue(times.length > 0, "key " + key + " sent nothing");
            long first = times[0];
            assertTrue(first >= BurstyTrace.START && times[times.length - 1] < BurstyTrace.START + 60_000 + HOUR);
            for (int i = 1; i < times.length; i++) {
                assertTrue(times[i] >= times[i - 1], "key " + key + " runs backwards at " + i);
                volley |= times[i] == times[i - 1];
            }
            overLimit |= AccuracyTally.maxInWindow(times, times.length, 60_000) > 100;
        }
        assertTrue(volley, "no two requests of a key in the same millisecond");
        assertTrue(overLimit, "no key ever sent more than its limit in a window");
    }
}

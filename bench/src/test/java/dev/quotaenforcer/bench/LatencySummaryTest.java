package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencySummaryTest {

    @Test
    void readsPercentilesInMillisecondsFromMicroseconds() {
        Histogram micros = new Histogram(60_000_000, 3);
        for (long value = 1; value <= 10_000; value++) {
            micros.recordValue(value);
        }

        LatencySummary summary = LatencySummary.of(micros);

        assertEquals(10_000, summary.count());
        // Three significant digits: each within 0.1%.
        assertEquals(5.0, summary.p50Ms(), 0.005);
        assertEquals(9.9, summary.p99Ms(), 0.01);
        assertEquals(9.99, summary.p999Ms(), 0.01);
        assertEquals(10.0, summary.maxMs(), 0.01);
    }

    @Test
    void aSingleSlowRequestShowsInTheTailButNotTheMedian() {
        Histogram micros = new Histogram(60_000_000, 3);
        micros.recordValueWithCount(1_000, 999);
        micros.recordValue(2_000_000);

        LatencySummary summary = LatencySummary.of(micros);

        assertEquals(1.0, summary.p50Ms(), 0.001);
        assertEquals(1.0, summary.p99Ms(), 0.001);
        assertEquals(2000, summary.maxMs(), 2);
    }
}

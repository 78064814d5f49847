package dev.quotaenforcer.bench;

import org.HdrHistogram.Histogram;

/**
 * The percentiles of a latency histogram recorded in microseconds, in milliseconds for the report.
 * HdrHistogram keeps three significant digits, so each figure is within 0.1% of the recorded value.
 */
record LatencySummary(long count, double p50Ms, double p99Ms, double p999Ms, double maxMs) {

    static LatencySummary of(Histogram micros) {
        return new LatencySummary(micros.getTotalCount(), ms(micros.getValueAtPercentile(50)),
                ms(micros.getValueAtPercentile(99)), ms(micros.getValueAtPercentile(99.9)), ms(micros.getMaxValue()));
    }

    private static double ms(long micros) {
        return micros / 1000.0;
    }
}

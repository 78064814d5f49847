package dev.quotaenforcer.plan;

import dev.quotaenforcer.limit.RefillRate;

/**
 * Writes a plan's rates and windows as people write them ({@code 20/s}, {@code 5/min},
 * {@code 3 per 1h}) instead of as raw ISO-8601 durations ({@code 1 per PT0.05S}).
 *
 * <p>Every form is exact, never rounded, so it reads back into the same plan fields: {@code N/s},
 * {@code N/min} and {@code N/h} are {@code refillTokens} N per {@code refillPeriod} PT1S, PT1M or PT1H;
 * {@code T per D} is {@code refillTokens} T per a {@code refillPeriod} of D when D is whole seconds, else
 * {@code refillPerSecond} T/D (a rate given with decimals, such as 0.064, reduces to a period in milliseconds).
 */
public final class PlanText {

    /** Units a duration is written in, largest first, with their length in milliseconds; below them, ms. */
    private static final String[] UNITS = {"d", "h", "min", "s"};
    private static final long[] UNIT_MS = {86_400_000, 3_600_000, 60_000, 1_000};
    /** Units a rate is written per, smallest first: the first that gives a whole number of tokens wins. */
    private static final String[] RATE_UNITS = {"s", "min", "h"};
    private static final long[] RATE_UNIT_MS = {1_000, 60_000, 3_600_000};

    private PlanText() {
    }

    /**
     * The rate as a whole number of tokens per second, minute or hour, the first of those that is whole
     * ({@code 20/s}, {@code 40/min} rather than {@code 2400/h}); when none is, the reduced fraction's
     * tokens per its period written as {@link #duration} ({@code 1 per 2h}, {@code 1 per 15625ms}).
     */
    public static String rate(RefillRate rate) {
        // A RefillRate is reduced to lowest terms, so tokens per unit is whole exactly when the period divides the unit.
        for (int i = 0; i < RATE_UNITS.length; i++) {
            if (RATE_UNIT_MS[i] % rate.periodMs() == 0) {
                try {
                    return Math.multiplyExact(rate.tokens(), RATE_UNIT_MS[i] / rate.periodMs()) + "/" + RATE_UNITS[i];
                } catch (ArithmeticException e) {
                    // More tokens per unit than a long holds (no plan's rate comes near): the fraction as it is.
                    break;
                }
            }
        }
        return rate.tokens() + " per " + duration(rate.periodMs());
    }

    /** {@code limit} per a window of {@code windowMs}, e.g. {@code 100 per 1min}. */
    public static String window(long limit, long windowMs) {
        return limit + " per " + duration(windowMs);
    }

    /**
     * A duration as a whole number of its largest unit that divides it: {@code 1h}, {@code 90min} (PT1H30M),
     * {@code 31d}, {@code 1500ms}; zero is {@code 0s}.
     */
    public static String duration(long ms) {
        if (ms == 0) {
            return "0s";
        }
        for (int i = 0; i < UNITS.length; i++) {
            if (ms % UNIT_MS[i] == 0) {
                return ms / UNIT_MS[i] + UNITS[i];
            }
        }
        return ms + "ms";
    }
}

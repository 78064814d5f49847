package dev.quotaenforcer.bench;

import java.util.Locale;

/** How the report prints numbers: as many digits as a noisy measurement deserves, never locale-dependent. */
public final class Numbers {

    private Numbers() {
    }

    /** Whole numbers in full; others to three significant digits, but one decimal from 10 up and none from 1000 up. */
    public static String of(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return String.valueOf(value);
        }
        double magnitude = Math.abs(value);
        if (value == Math.rint(value) && magnitude < 1e15) {
            return String.format(Locale.ROOT, "%d", (long) value);
        }
        if (magnitude >= 1000) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (magnitude >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.3g", value);
    }

    /** A share (0.25) as a percentage with enough digits to show Cloudflare-sized rates ({@code 0.0030%}). */
    public static String percent(double share) {
        return String.format(Locale.ROOT, "%.4f%%", share * 100);
    }
}

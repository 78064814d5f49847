package dev.quotaenforcer.limit;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;

/**
 * A bucket's refill (or drain) rate as an exact fraction: {@code tokens} per {@code periodMs}.
 * Kept rational so that "5 per minute" refills exactly one token every 12 s, with no rounding drift.
 */
public record RefillRate(long tokens, long periodMs) {

    /** Longest period a rate may reduce to; keeps capacity x period inside a long. */
    public static final long MAX_PERIOD_MS = 1_000_000_000L;

    public RefillRate {
        if (tokens <= 0 || periodMs <= 0) {
            throw new IllegalArgumentException("rate must be positive: " + tokens + " per " + periodMs + " ms");
        }
        long gcd = BigInteger.valueOf(tokens).gcd(BigInteger.valueOf(periodMs)).longValueExact();
        tokens /= gcd;
        periodMs /= gcd;
        if (periodMs > MAX_PERIOD_MS) {
            throw new IllegalArgumentException("rate is too fine: " + tokens + " per " + periodMs + " ms");
        }
    }

    public static RefillRate of(long tokens, Duration period) {
        return new RefillRate(tokens, period.toMillis());
    }

    /** Parses an exact decimal rate such as {@code 2} or {@code 0.5} tokens per second. */
    public static RefillRate perSecond(BigDecimal perSecond) {
        BigDecimal stripped = perSecond.stripTrailingZeros();
        int scale = Math.max(0, stripped.scale());
        BigInteger tokens = stripped.movePointRight(scale).toBigIntegerExact();
        BigInteger period = BigInteger.valueOf(1000).multiply(BigInteger.TEN.pow(scale));
        return new RefillRate(tokens.longValueExact(), period.longValueExact());
    }

    public double perSecond() {
        return tokens * 1000.0 / periodMs;
    }
}

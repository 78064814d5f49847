package dev.quotaenforcer.http;

import dev.quotaenforcer.event.QuotaExceeded;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How the API shows API keys where it lists them (top keys, recent quota-exceeded events, and so
 * the dashboard): as they are, or masked as their first 4 characters, an ellipsis and 8 hex digits
 * of their SHA-256. The digest makes a masked key the same on every instance and in every view, so
 * it can still be followed across them; keys under 12 characters show no characters at all.
 */
enum KeyDisplay {
    PLAIN,
    MASKED;

    private static final int SHOWN_CHARACTERS = 4;
    private static final int SHOWN_FROM_LENGTH = 12;
    private static final int DIGEST_BYTES = 4;

    static KeyDisplay of(boolean masked) {
        return masked ? MASKED : PLAIN;
    }

    String show(String apiKey) {
        if (this == PLAIN) {
            return apiKey;
        }
        String shown = apiKey.length() >= SHOWN_FROM_LENGTH
                ? apiKey.substring(0, apiKey.offsetByCodePoints(0, SHOWN_CHARACTERS)) : "";
        return shown + "…" + HexFormat.of().formatHex(sha256(apiKey), 0, DIGEST_BYTES);
    }

    TopKey show(TopKey key) {
        return this == PLAIN ? key : new TopKey(show(key.apiKey()), key.allowed(), key.denied(), key.allowedCost(),
                key.quotaDenied(), key.quotaUsed(), key.quotaLimit());
    }

    QuotaExceeded show(QuotaExceeded event) {
        return this == PLAIN ? event : new QuotaExceeded(show(event.apiKey()), event.plan(), event.policy(), event.kind(),
                event.limit(), event.windowStart(), event.windowEnd(), event.requestId(), event.time());
    }

    private static byte[] sha256(String apiKey) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(apiKey.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}

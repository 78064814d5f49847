package dev.quotaenforcer.engine;

import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.Verdict;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The HTTP header values a gateway returns for a decision: {@code Retry-After} on denial, the
 * widely deployed {@code RateLimit-Limit/-Remaining/-Reset} (seconds), and the IETF httpapi draft's
 * structured {@code RateLimit-Policy} (every policy: quota {@code q}, window {@code w} in seconds)
 * and {@code RateLimit} (the binding policy: remaining {@code r}, reset {@code t} in seconds). A
 * request denied by an operator's block gets {@code Retry-After} alone, and none when the block has no end.
 */
public final class RateLimitHeaders {

    private RateLimitHeaders() {
    }

    public static Map<String, String> of(Evaluation evaluation) {
        Map<String, String> headers = new LinkedHashMap<>();
        long retryAfter = evaluation.retryAfterSeconds();
        if (!evaluation.allowed() && retryAfter != Verdict.NEVER) {
            headers.put("Retry-After", Long.toString(retryAfter));
        }
        if (evaluation.blocked()) {
            return headers;
        }
        Evaluation.PolicyVerdict binding = evaluation.bindingVerdict();
        Verdict verdict = binding.verdict();
        headers.put("RateLimit-Limit", Long.toString(verdict.limit()));
        headers.put("RateLimit-Remaining", Long.toString(verdict.remaining()));
        headers.put("RateLimit-Reset", Long.toString(verdict.resetSeconds()));
        StringJoiner policies = new StringJoiner(", ");
        for (Evaluation.PolicyVerdict v : evaluation.verdicts()) {
            LimitPolicy limit = v.policy().limit();
            policies.add(quoted(limit.name()) + ";q=" + limit.limit() + ";w=" + windowSeconds(limit));
        }
        headers.put("RateLimit-Policy", policies.toString());
        headers.put("RateLimit", quoted(binding.policy().name()) + ";r=" + verdict.remaining() + ";t=" + verdict.resetSeconds());
        return headers;
    }

    /** A window policy's window; for a bucket, the time its rate takes to refill the whole capacity. */
    static long windowSeconds(LimitPolicy limit) {
        if (limit.algorithm().windowed()) {
            return limit.windowMs() / 1000;
        }
        long units = limit.limit() * limit.refill().periodMs();
        long ms = -Math.floorDiv(-units, limit.refill().tokens());
        return Math.max(1, -Math.floorDiv(-ms, 1000L));
    }

    private static String quoted(String name) {
        return '"' + name + '"';
    }
}

package dev.quotaenforcer.engine;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The HTTP header values a gateway returns for a decision: {@code Retry-After} on denial, the
 * widely deployed {@code RateLimit-Limit/-Remaining/-Reset} (seconds), and the IETF httpapi draft's
 * structured {@code RateLimit-Policy} (every policy: quota {@code q}, window {@code w} in seconds)
 * and {@code RateLimit} (the binding policy: remaining {@code r}, reset {@code t} in seconds). A
 * request denied by an operator's block gets {@code Retry-After} alone, and none when the block has no end.
 */
public final class RateLimitHeaders {

    /** Seconds until a denied request may succeed. */
    public static final String RETRY_AFTER = "Retry-After";
    /** The binding policy's limit. */
    public static final String LIMIT = "RateLimit-Limit";
    /** What the binding policy has left. */
    public static final String REMAINING = "RateLimit-Remaining";
    /** Seconds until the binding policy resets. */
    public static final String RESET = "RateLimit-Reset";
    /** Every policy of the plan, in the IETF draft's structured form. */
    public static final String POLICY = "RateLimit-Policy";
    /** The binding policy's standing, in the IETF draft's structured form. */
    public static final String RATE_LIMIT = "RateLimit";

    /**
     * The last plan's {@code RateLimit-Policy} value, per thread: it depends on the plan alone, a
     * deciding thread sees the same plan object for most of its decisions, and building it was the
     * largest part of building a decision's headers.
     */
    private static final ThreadLocal<PolicyValue> LAST_POLICY = new ThreadLocal<>();

    private record PolicyValue(Plan plan, String value) {
    }

    private RateLimitHeaders() {
    }

    /**
     * The headers of a decision of {@code plan}, from the decision's own fields: so a decision stored
     * without them (a remembered request's) gets them back exactly as long as its plan is unchanged.
     */
    public static Values of(Plan plan, Decision decision) {
        return of(plan, decision.allowed(), decision.reason(), decision.policy(), decision.limit(), decision.remaining(),
                decision.resetSeconds(), decision.retryAfterSeconds());
    }

    /** The headers of a decision with these fields, before the decision is built (one object per decision). */
    static Values of(Plan plan, boolean allowed, Reason reason, String policy, long limit, long remaining,
                     long resetSeconds, long retryAfterSeconds) {
        boolean retryAfter = !allowed && retryAfterSeconds != Verdict.NEVER;
        return reason == Reason.BLOCKED
                ? new Values(retryAfter, retryAfterSeconds, false, 0, 0, 0, null, null)
                : new Values(retryAfter, retryAfterSeconds, true, limit, remaining, resetSeconds, policyValue(plan), policy);
    }

    /**
     * A decision's headers as the numbers and names they are made of, read as a map of their text in
     * order (built once, when first read): a decision's writer takes the numbers straight into its
     * bytes, where a map of text cost a map, four numbers turned to text and a concatenation per decision.
     */
    public static final class Values extends AbstractMap<String, String> {
        private final boolean hasRetryAfter;
        private final long retryAfterSeconds;
        private final boolean hasRateLimit;
        private final long limit;
        private final long remaining;
        private final long resetSeconds;
        private final String policyValue;
        private final String policy;
        private volatile Map<String, String> text;

        private Values(boolean hasRetryAfter, long retryAfterSeconds, boolean hasRateLimit, long limit, long remaining,
                       long resetSeconds, String policyValue, String policy) {
            this.hasRetryAfter = hasRetryAfter;
            this.retryAfterSeconds = retryAfterSeconds;
            this.hasRateLimit = hasRateLimit;
            this.limit = limit;
            this.remaining = remaining;
            this.resetSeconds = resetSeconds;
            this.policyValue = policyValue;
            this.policy = policy;
        }

        /** Whether {@link #RETRY_AFTER} is there: a denial that can succeed later. */
        public boolean hasRetryAfter() {
            return hasRetryAfter;
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }

        /** Whether the five rate-limit headers are there: every decision but an operator's block. */
        public boolean hasRateLimit() {
            return hasRateLimit;
        }

        public long limit() {
            return limit;
        }

        public long remaining() {
            return remaining;
        }

        public long resetSeconds() {
            return resetSeconds;
        }

        /** The {@link #POLICY} value: the same string for every decision of a plan on a thread. */
        public String policyValue() {
            return policyValue;
        }

        /** The binding policy's name, quoted in the {@link #RATE_LIMIT} value. */
        public String policy() {
            return policy;
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            Map<String, String> built = text;
            if (built == null) {
                built = Collections.unmodifiableMap(build());
                text = built;
            }
            return built.entrySet();
        }

        private Map<String, String> build() {
            Map<String, String> headers = new LinkedHashMap<>();
            if (hasRetryAfter) {
                headers.put(RETRY_AFTER, Long.toString(retryAfterSeconds));
            }
            if (hasRateLimit) {
                headers.put(LIMIT, Long.toString(limit));
                headers.put(REMAINING, Long.toString(remaining));
                headers.put(RESET, Long.toString(resetSeconds));
                headers.put(POLICY, policyValue);
                headers.put(RATE_LIMIT, quoted(policy) + ";r=" + remaining + ";t=" + resetSeconds);
            }
            return headers;
        }
    }

    private static String policyValue(Plan plan) {
        PolicyValue last = LAST_POLICY.get();
        if (last != null && last.plan() == plan) {
            return last.value();
        }
        StringJoiner policies = new StringJoiner(", ");
        for (PlanPolicy planPolicy : plan.policies()) {
            LimitPolicy limitPolicy = planPolicy.limit();
            policies.add(quoted(limitPolicy.name()) + ";q=" + limitPolicy.limit() + ";w=" + windowSeconds(limitPolicy));
        }
        String value = policies.toString();
        LAST_POLICY.set(new PolicyValue(plan, value));
        return value;
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

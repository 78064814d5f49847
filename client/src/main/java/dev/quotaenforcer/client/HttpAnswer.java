package dev.quotaenforcer.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** What a gateway does with a decision: forward the request with RateLimit headers, or answer it itself with an error. */
public final class HttpAnswer {

    /** The media type of every error body (RFC 9457). */
    public static final String PROBLEM_JSON = "application/problem+json";

    private static final String PROBLEMS = "https://quota-enforcer.dev/problems/";
    private static final String INSTANCE_PREFIX = "urn:quota-enforcer:request:";
    private static final String RETRY_AFTER = "Retry-After";
    private static final List<String> RATE_LIMIT_HEADERS = List.of(
            "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "RateLimit");
    private static final List<String> LEGACY_SOURCES = List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset");
    private static final String HEX = "0123456789ABCDEF";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final boolean pass;
    private final long delayMs;
    private final int status;
    private final Map<String, String> headers;
    private final String body;

    private HttpAnswer(boolean pass, long delayMs, int status, Map<String, String> headers, String body) {
        this.pass = pass;
        this.delayMs = delayMs;
        this.status = status;
        this.headers = Collections.unmodifiableMap(headers);
        this.body = body;
    }

    /** The answer to a decision, with the standard headers only. */
    public static HttpAnswer of(Decision decision) {
        return of(decision, false);
    }

    /**
     * The answer to a decision.
     *
     * @param legacyHeaders also send {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
     *                      {@code X-RateLimit-Reset}; the last carries seconds until reset, like
     *                      {@code RateLimit-Reset}, not a Unix time as GitHub's does
     * @throws IllegalArgumentException if {@code allowed} and the reason disagree
     */
    public static HttpAnswer of(Decision decision, boolean legacyHeaders) {
        Reason reason = Objects.requireNonNull(decision.reason(), "decision.reason");
        // A gateway's failure policy may let a request through or refuse it: UNAVAILABLE fits either.
        if (reason != Reason.UNAVAILABLE && decision.allowed() != (reason == Reason.OK)) {
            throw new IllegalArgumentException("decision " + decision.requestId() + " has allowed=" + decision.allowed()
                    + " but reason " + reason);
        }
        Map<String, String> headers = headers(decision, legacyHeaders);
        if (decision.allowed()) {
            return new HttpAnswer(true, Math.max(0, decision.delayMs()), 0, headers, null);
        }
        Problem problem = Problem.of(reason);
        headers.put("Content-Type", PROBLEM_JSON);
        return new HttpAnswer(false, 0, problem.status(), headers, body(decision, problem));
    }

    /** True: forward the request upstream after {@link #delayMs()} and add {@link #headers()} to its response. */
    public boolean pass() {
        return pass;
    }

    /** How long to hold a passing request before forwarding it (leaky bucket); 0 for a denial. */
    public long delayMs() {
        return delayMs;
    }

    /**
     * The status to answer a denied request with: 429, 401, 403 or 400.
     *
     * @throws IllegalStateException if the request passes: its status is the upstream's
     */
    public int status() {
        if (pass) {
            throw new IllegalStateException("a passing request has no status of its own: the upstream's response gives it");
        }
        return status;
    }

    /**
     * The headers to send, in order: {@code Retry-After} (denials), {@code RateLimit-*}, any legacy
     * {@code X-RateLimit-*}, and {@code Content-Type} (denials); unmodifiable.
     */
    public Map<String, String> headers() {
        return headers;
    }

    /** The {@code application/problem+json} body of a denial, to send as UTF-8; null when the request passes. */
    public String body() {
        return body;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HttpAnswer other && pass == other.pass && delayMs == other.delayMs && status == other.status
                && headers.equals(other.headers) && Objects.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(pass, delayMs, status, headers, body);
    }

    @Override
    public String toString() {
        return pass ? "HttpAnswer[pass, delayMs=" + delayMs + ", headers=" + headers + "]"
                : "HttpAnswer[status=" + status + ", headers=" + headers + ", body=" + body + "]";
    }

    private static Map<String, String> headers(Decision decision, boolean legacyHeaders) {
        Map<String, String> given = decision.headers() == null ? Map.of() : decision.headers();
        Map<String, String> headers = new LinkedHashMap<>();
        if (!decision.allowed()) {
            putIfPresent(headers, RETRY_AFTER, given.get(RETRY_AFTER));
        }
        for (String name : RATE_LIMIT_HEADERS) {
            putIfPresent(headers, name, given.get(name));
        }
        given.forEach((name, value) -> {
            if (!name.equals(RETRY_AFTER) && !RATE_LIMIT_HEADERS.contains(name)) {
                putIfPresent(headers, name, value);
            }
        });
        if (legacyHeaders) {
            for (String name : LEGACY_SOURCES) {
                putIfPresent(headers, "X-" + name, given.get(name));
            }
        }
        return headers;
    }

    private static void putIfPresent(Map<String, String> headers, String name, String value) {
        if (value != null) {
            headers.put(name, value);
        }
    }

    /** A problem type of RFC 9457: its status, its URI's last segment and its title. */
    private record Problem(int status, String slug, String title) {

        static Problem of(Reason reason) {
            return switch (reason) {
                case RATE_LIMITED -> new Problem(429, "rate-limited", "Too Many Requests");
                case QUOTA_EXCEEDED -> new Problem(429, "quota-exceeded", "Quota exceeded");
                case UNKNOWN_API_KEY -> new Problem(401, "unknown-api-key", "Unknown API key");
                case UNKNOWN_PLAN -> new Problem(403, "unknown-plan", "Unknown plan");
                case BLOCKED -> new Problem(403, "key-blocked", "API key blocked");
                case INVALID_REQUEST -> new Problem(400, "invalid-request", "Invalid request");
                case UNAVAILABLE -> new Problem(503, "enforcer-unavailable", "Service Unavailable");
                case OK -> throw new IllegalArgumentException("an allowed request has no problem");
            };
        }
    }

    private static String body(Decision decision, Problem type) {
        ObjectNode problem = MAPPER.createObjectNode();
        problem.put("type", PROBLEMS + type.slug());
        problem.put("title", type.title());
        problem.put("status", type.status());
        problem.put("detail", detail(decision));
        if (decision.requestId() != null) {
            problem.put("instance", INSTANCE_PREFIX + urnEncode(decision.requestId()));
            problem.put("requestId", decision.requestId());
        }
        putIfPresent(problem, "apiKey", decision.apiKey());
        putIfPresent(problem, "plan", decision.plan());
        if (type.status() == 429) {
            putIfPresent(problem, "policy", decision.policy());
            problem.put("limit", decision.limit());
            if (decision.retryAfterSeconds() >= 0) {
                problem.put("retryAfterSeconds", decision.retryAfterSeconds());
            }
        }
        try {
            return MAPPER.writeValueAsString(problem);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON tree of strings and numbers", e);
        }
    }

    private static void putIfPresent(ObjectNode node, String name, String value) {
        if (value != null) {
            node.put(name, value);
        }
    }

    private static String detail(Decision decision) {
        return switch (decision.reason()) {
            case RATE_LIMITED, QUOTA_EXCEEDED -> {
                String limit = (decision.policy() == null ? "the plan" : decision.policy()) + " allows " + decision.limit();
                yield decision.retryAfterSeconds() < 0
                        ? limit + "; this request's cost exceeds that, so it can never be admitted"
                        : limit + "; retry after " + decision.retryAfterSeconds() + " s";
            }
            case UNKNOWN_API_KEY -> "The API key is not known.";
            case UNKNOWN_PLAN -> decision.plan() == null ? "The API key is assigned to a plan that is not in force."
                    : "The API key is assigned to plan \"" + decision.plan() + "\", which is not in force.";
            case INVALID_REQUEST -> "The request could not be read; it was not counted.";
            case BLOCKED -> decision.retryAfterSeconds() < 0 ? "An operator blocked the API key until further notice."
                    : "An operator blocked the API key; retry after " + decision.retryAfterSeconds() + " s.";
            case UNAVAILABLE -> "No quota decision arrived in time, and the gateway refuses requests it cannot check.";
            case OK -> throw new AssertionError(decision.reason());
        };
    }

    /** Percent-encodes, as UTF-8, every character a URN's namespace-specific string does not allow. */
    private static String urnEncode(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~!$&'()*+,;=:@/".indexOf(c) >= 0)) {
                out.append((char) c);
            } else {
                out.append('%').append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xf));
            }
        }
        return out.toString();
    }
}

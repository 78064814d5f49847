package dev.quotaenforcer.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a gateway answers for each decision: pass or status, headers in order, and the RFC 9457 problem body. */
class HttpAnswerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant TIME = Instant.parse("2026-11-30T12:01:00Z");
    private static final String POLICIES = "\"per-minute\";q=100;w=60, \"hourly\";q=1000;w=3600";

    @Test
    void allowedRequestPassesWithTheRateLimitHeadersAndNoBody() {
        HttpAnswer answer = HttpAnswer.of(allowed(0));

        assertTrue(answer.pass());
        assertEquals(0, answer.delayMs());
        assertNull(answer.body());
        assertEquals(List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "RateLimit"),
                names(answer));
        assertEquals(Map.of("RateLimit-Limit", "100", "RateLimit-Remaining", "41", "RateLimit-Reset", "60",
                "RateLimit-Policy", POLICIES, "RateLimit", "\"per-minute\";r=41;t=60"), answer.headers());
    }

    @Test
    void passingRequestHasNoStatusOfItsOwn() {
        HttpAnswer answer = HttpAnswer.of(allowed(0));

        assertThrows(IllegalStateException.class, answer::status);
    }

    @Test
    void passingRequestCarriesTheLeakyBucketDelay() {
        assertEquals(250, HttpAnswer.of(allowed(250)).delayMs());
    }

    @Test
    void rateLimitedIs429WithEveryDecisionHeaderAndARateLimitedProblem() throws Exception {
        HttpAnswer answer = HttpAnswer.of(denied(Reason.RATE_LIMITED, "per-minute", 100, 12));

        assertFalse(answer.pass());
        assertEquals(429, answer.status());
        assertEquals(0, answer.delayMs());
        assertEquals(List.of("Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                "RateLimit-Policy", "RateLimit", "Content-Type"), names(answer));
        assertEquals("12", answer.headers().get("Retry-After"));
        assertEquals("100", answer.headers().get("RateLimit-Limit"));
        assertEquals("0", answer.headers().get("RateLimit-Remaining"));
        assertEquals("12", answer.headers().get("RateLimit-Reset"));
        assertEquals(POLICIES, answer.headers().get("RateLimit-Policy"));
        assertEquals("\"per-minute\";r=0;t=12", answer.headers().get("RateLimit"));
        assertEquals("application/problem+json", answer.headers().get("Content-Type"));

        JsonNode body = JSON.readTree(answer.body());
        assertEquals(List.of("type", "title", "status", "detail", "instance", "requestId", "apiKey", "plan", "policy",
                "limit", "retryAfterSeconds"), members(body));
        assertEquals("https://quota-enforcer.dev/problems/rate-limited", body.get("type").textValue());
        assertEquals("Too Many Requests", body.get("title").textValue());
        assertEquals(429, body.get("status").intValue());
        assertEquals("per-minute allows 100; retry after 12 s", body.get("detail").textValue());
        assertEquals("urn:quota-enforcer:request:r-1", body.get("instance").textValue());
        assertEquals("r-1", body.get("requestId").textValue());
        assertEquals("k-1", body.get("apiKey").textValue());
        assertEquals("free", body.get("plan").textValue());
        assertEquals("per-minute", body.get("policy").textValue());
        assertEquals(100, body.get("limit").longValue());
        assertEquals(12, body.get("retryAfterSeconds").longValue());
    }

    @Test
    void quotaExceededIs429WithAQuotaExceededProblem() throws Exception {
        HttpAnswer answer = HttpAnswer.of(denied(Reason.QUOTA_EXCEEDED, "hourly", 1000, 1140));

        assertEquals(429, answer.status());
        assertEquals("1140", answer.headers().get("Retry-After"));
        assertEquals("1000", answer.headers().get("RateLimit-Limit"));
        assertEquals("application/problem+json", answer.headers().get("Content-Type"));

        JsonNode body = JSON.readTree(answer.body());
        assertEquals("https://quota-enforcer.dev/problems/quota-exceeded", body.get("type").textValue());
        assertEquals("Quota exceeded", body.get("title").textValue());
        assertEquals(429, body.get("status").intValue());
        assertEquals("hourly allows 1000; retry after 1140 s", body.get("detail").textValue());
        assertEquals("urn:quota-enforcer:request:r-1", body.get("instance").textValue());
        assertEquals("k-1", body.get("apiKey").textValue());
        assertEquals("free", body.get("plan").textValue());
        assertEquals("hourly", body.get("policy").textValue());
        assertEquals(1000, body.get("limit").longValue());
        assertEquals(1140, body.get("retryAfterSeconds").longValue());
    }

    @Test
    void seedArticlesSixthRequestIsAnswered429WithRetryAfterAndRateLimitHeaders() throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Retry-After", "42");
        headers.put("RateLimit-Limit", "5");
        headers.put("RateLimit-Remaining", "0");
        headers.put("RateLimit-Reset", "42");
        headers.put("RateLimit-Policy", "\"per-minute\";q=5;w=60");
        headers.put("RateLimit", "\"per-minute\";r=0;t=42");
        Decision sixth = new Decision("r-6", "k-1", "free", false, Reason.RATE_LIMITED, "per-minute", 5, 0, 42, 42, 0,
                TIME, headers);

        HttpAnswer answer = HttpAnswer.of(sixth);

        assertEquals(429, answer.status());
        Map<String, String> expected = new LinkedHashMap<>(headers);
        expected.put("Content-Type", "application/problem+json");
        assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(answer.headers().entrySet()));
        JsonNode body = JSON.readTree(answer.body());
        assertEquals("per-minute allows 5; retry after 42 s", body.get("detail").textValue());
        assertEquals(42, body.get("retryAfterSeconds").longValue());
    }

    @Test
    void costThatCanNeverBeAdmittedHasNoRetryAfterAndSaysSo() throws Exception {
        HttpAnswer answer = HttpAnswer.of(denied(Reason.RATE_LIMITED, "per-minute", 100, -1));

        assertEquals(429, answer.status());
        assertFalse(answer.headers().containsKey("Retry-After"));
        assertEquals(List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "RateLimit",
                "Content-Type"), names(answer));
        JsonNode body = JSON.readTree(answer.body());
        assertFalse(body.has("retryAfterSeconds"));
        assertEquals("per-minute allows 100; this request's cost exceeds that, so it can never be admitted",
                body.get("detail").textValue());
        assertEquals(100, body.get("limit").longValue());
    }

    @Test
    void unknownApiKeyIs401WithAProblemAndNoRateLimitHeaders() throws Exception {
        HttpAnswer answer = HttpAnswer.of(Decision.rejected("r-1", "k-9", null, Reason.UNKNOWN_API_KEY, 0));

        assertFalse(answer.pass());
        assertEquals(401, answer.status());
        assertEquals(Map.of("Content-Type", "application/problem+json"), answer.headers());
        JsonNode body = JSON.readTree(answer.body());
        assertEquals(List.of("type", "title", "status", "detail", "instance", "requestId", "apiKey"), members(body));
        assertEquals("https://quota-enforcer.dev/problems/unknown-api-key", body.get("type").textValue());
        assertEquals("Unknown API key", body.get("title").textValue());
        assertEquals(401, body.get("status").intValue());
        assertEquals("The API key is not known.", body.get("detail").textValue());
        assertEquals("urn:quota-enforcer:request:r-1", body.get("instance").textValue());
        assertEquals("r-1", body.get("requestId").textValue());
        assertEquals("k-9", body.get("apiKey").textValue());
    }

    @Test
    void unknownPlanIs403NamingThePlanNotInForce() throws Exception {
        HttpAnswer answer = HttpAnswer.of(Decision.rejected("r-1", "k-1", "gold", Reason.UNKNOWN_PLAN, 0));

        assertEquals(403, answer.status());
        assertEquals(Map.of("Content-Type", "application/problem+json"), answer.headers());
        JsonNode body = JSON.readTree(answer.body());
        assertEquals(List.of("type", "title", "status", "detail", "instance", "requestId", "apiKey", "plan"), members(body));
        assertEquals("https://quota-enforcer.dev/problems/unknown-plan", body.get("type").textValue());
        assertEquals("Unknown plan", body.get("title").textValue());
        assertEquals(403, body.get("status").intValue());
        assertEquals("The API key is assigned to plan \"gold\", which is not in force.", body.get("detail").textValue());
        assertEquals("urn:quota-enforcer:request:r-1", body.get("instance").textValue());
        assertEquals("k-1", body.get("apiKey").textValue());
        assertEquals("gold", body.get("plan").textValue());
    }

    @Test
    void blockedKeyIs403WithRetryAfterWhileTheBlockHasAnEnd() throws Exception {
        HttpAnswer answer = HttpAnswer.of(new Decision("r-1", "k-1", "free", false, Reason.BLOCKED, null, 0, 0, 0, 600, 0,
                TIME, Map.of("Retry-After", "600")));

        assertEquals(403, answer.status());
        assertEquals("600", answer.headers().get("Retry-After"));
        JsonNode body = JSON.readTree(answer.body());
        assertEquals("https://quota-enforcer.dev/problems/key-blocked", body.get("type").textValue());
        assertEquals("An operator blocked the API key; retry after 600 s.", body.get("detail").textValue());
    }

    @Test
    void keyBlockedWithoutEndIs403WithoutRetryAfter() throws Exception {
        HttpAnswer answer = HttpAnswer.of(new Decision("r-1", "k-1", "free", false, Reason.BLOCKED, null, 0, 0, 0, -1, 0,
                TIME, Map.of()));

        assertEquals(403, answer.status());
        assertEquals(Map.of("Content-Type", "application/problem+json"), answer.headers());
        assertEquals("An operator blocked the API key until further notice.",
                JSON.readTree(answer.body()).get("detail").textValue());
    }

    @Test
    void invalidRequestIs400WithAProblem() throws Exception {
        HttpAnswer answer = HttpAnswer.of(Decision.rejected("r-1", "k-1", null, Reason.INVALID_REQUEST, 0));

        assertEquals(400, answer.status());
        assertEquals(Map.of("Content-Type", "application/problem+json"), answer.headers());
        JsonNode body = JSON.readTree(answer.body());
        assertEquals(List.of("type", "title", "status", "detail", "instance", "requestId", "apiKey"), members(body));
        assertEquals("https://quota-enforcer.dev/problems/invalid-request", body.get("type").textValue());
        assertEquals("Invalid request", body.get("title").textValue());
        assertEquals(400, body.get("status").intValue());
        assertEquals("The request could not be read; it was not counted.", body.get("detail").textValue());
        assertEquals("urn:quota-enforcer:request:r-1", body.get("instance").textValue());
        assertEquals("k-1", body.get("apiKey").textValue());
    }

    @Test
    void legacyHeadersAreAbsentByDefaultAndWhenOff() {
        Decision decision = denied(Reason.RATE_LIMITED, "per-minute", 100, 12);

        assertEquals(HttpAnswer.of(decision), HttpAnswer.of(decision, false));
        assertTrue(HttpAnswer.of(decision).headers().keySet().stream().noneMatch(name -> name.startsWith("X-")));
        assertTrue(HttpAnswer.of(allowed(0)).headers().keySet().stream().noneMatch(name -> name.startsWith("X-")));
    }

    @Test
    void legacyHeadersRepeatLimitRemainingAndSecondsUntilResetAfterTheStandardOnes() {
        HttpAnswer answer = HttpAnswer.of(denied(Reason.RATE_LIMITED, "per-minute", 100, 12), true);

        assertEquals(List.of("Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy",
                "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Content-Type"),
                names(answer));
        assertEquals("100", answer.headers().get("X-RateLimit-Limit"));
        assertEquals("0", answer.headers().get("X-RateLimit-Remaining"));
        assertEquals("12", answer.headers().get("X-RateLimit-Reset"));
    }

    @Test
    void legacyHeadersAreAddedToAPassingRequestToo() {
        HttpAnswer answer = HttpAnswer.of(allowed(0), true);

        assertEquals(List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "RateLimit",
                "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"), names(answer));
        assertEquals("100", answer.headers().get("X-RateLimit-Limit"));
        assertEquals("41", answer.headers().get("X-RateLimit-Remaining"));
        assertEquals("60", answer.headers().get("X-RateLimit-Reset"));
    }

    @Test
    void legacyHeadersAddNothingWhenTheDecisionHasNoRateLimitHeaders() {
        HttpAnswer answer = HttpAnswer.of(Decision.rejected("r-1", "k-9", null, Reason.UNKNOWN_API_KEY, 0), true);

        assertEquals(Map.of("Content-Type", "application/problem+json"), answer.headers());
    }

    @Test
    void requestIdAndApiKeyWithQuotesAndBackslashesAreEscapedInTheBody() throws Exception {
        String requestId = "r-\"1\"\\x";
        String apiKey = "k\"\\";
        Decision decision = new Decision(requestId, apiKey, "free", false, Reason.RATE_LIMITED, "per-minute", 100, 0, 12,
                12, 0, TIME, rateLimitHeaders("12", "0", "12"));

        String raw = HttpAnswer.of(decision).body();

        assertTrue(raw.contains("\"requestId\":\"r-\\\"1\\\"\\\\x\""), raw);
        assertTrue(raw.contains("\"apiKey\":\"k\\\"\\\\\""), raw);
        JsonNode body = JSON.readTree(raw);
        assertEquals(requestId, body.get("requestId").textValue());
        assertEquals(apiKey, body.get("apiKey").textValue());
    }

    @Test
    void instancePercentEncodesWhatAUrnDoesNotAllow() throws Exception {
        Decision decision = Decision.rejected("r-\"1\"\\x é%", "k-1", null, Reason.UNKNOWN_API_KEY, 0);

        JsonNode body = JSON.readTree(HttpAnswer.of(decision).body());

        assertEquals("urn:quota-enforcer:request:r-%221%22%5Cx%20%C3%A9%25", body.get("instance").textValue());
    }

    @Test
    void retryAfterComesFirstThenTheRateLimitHeadersWhateverTheDecisionsOrder() {
        Map<String, String> reversed = new LinkedHashMap<>();
        reversed.put("RateLimit", "\"per-minute\";r=0;t=12");
        reversed.put("RateLimit-Policy", POLICIES);
        reversed.put("RateLimit-Reset", "12");
        reversed.put("RateLimit-Remaining", "0");
        reversed.put("RateLimit-Limit", "100");
        reversed.put("Retry-After", "12");
        Decision decision = new Decision("r-1", "k-1", "free", false, Reason.RATE_LIMITED, "per-minute", 100, 0, 12, 12, 0,
                TIME, reversed);

        assertEquals(List.of("Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                "RateLimit-Policy", "RateLimit", "Content-Type"), names(HttpAnswer.of(decision)));
    }

    @Test
    void headersCannotBeChanged() {
        HttpAnswer answer = HttpAnswer.of(denied(Reason.RATE_LIMITED, "per-minute", 100, 12));

        assertThrows(UnsupportedOperationException.class, () -> answer.headers().put("X-Extra", "1"));
    }

    @Test
    void decisionWhoseAllowedFlagContradictsItsReasonIsRefused() {
        Decision allowedButLimited = new Decision("r-1", "k-1", "free", true, Reason.RATE_LIMITED, "per-minute", 100, 0,
                12, 0, 0, TIME, Map.of());
        Decision deniedButOk = new Decision("r-1", "k-1", "free", false, Reason.OK, "per-minute", 100, 0, 12, 12, 0,
                TIME, Map.of());

        assertThrows(IllegalArgumentException.class, () -> HttpAnswer.of(allowedButLimited));
        assertThrows(IllegalArgumentException.class, () -> HttpAnswer.of(deniedButOk));
    }

    @Test
    void failOpenDecisionOfAGatewayPasses() {
        Decision failOpen = new Decision("r-9", "k-1", null, true, Reason.UNAVAILABLE, null, 0, 0, 0, 0, 0,
                Instant.parse("2026-11-30T12:00:00Z"), Map.of());

        assertTrue(HttpAnswer.of(failOpen).pass());
    }

    @Test
    void failClosedDecisionOfAGatewayIsServiceUnavailable() throws Exception {
        Decision failClosed = new Decision("r-9", "k-1", null, false, Reason.UNAVAILABLE, null, 0, 0, 0, 0, 0,
                Instant.parse("2026-11-30T12:00:00Z"), Map.of());

        HttpAnswer answer = HttpAnswer.of(failClosed);

        assertEquals(503, answer.status());
        assertEquals("https://quota-enforcer.dev/problems/enforcer-unavailable",
                new ObjectMapper().readTree(answer.body()).path("type").asText());
    }

    private static Decision allowed(long delayMs) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("RateLimit-Limit", "100");
        headers.put("RateLimit-Remaining", "41");
        headers.put("RateLimit-Reset", "60");
        headers.put("RateLimit-Policy", POLICIES);
        headers.put("RateLimit", "\"per-minute\";r=41;t=60");
        return new Decision("r-1", "k-1", "free", true, Reason.OK, "per-minute", 100, 41, 60, 0, delayMs, TIME, headers);
    }

    /** A denial as the engine makes it: Retry-After unless the cost can never be admitted, then the RateLimit headers. */
    private static Decision denied(Reason reason, String policy, long limit, long retryAfter) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (retryAfter >= 0) {
            headers.put("Retry-After", Long.toString(retryAfter));
        }
        long reset = retryAfter >= 0 ? retryAfter : 60;
        headers.put("RateLimit-Limit", Long.toString(limit));
        headers.put("RateLimit-Remaining", "0");
        headers.put("RateLimit-Reset", Long.toString(reset));
        headers.put("RateLimit-Policy", POLICIES);
        headers.put("RateLimit", "\"" + policy + "\";r=0;t=" + reset);
        return new Decision("r-1", "k-1", "free", false, reason, policy, limit, 0, reset, retryAfter, 0, TIME, headers);
    }

    private static Map<String, String> rateLimitHeaders(String retryAfter, String remaining, String reset) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Retry-After", retryAfter);
        headers.put("RateLimit-Limit", "100");
        headers.put("RateLimit-Remaining", remaining);
        headers.put("RateLimit-Reset", reset);
        headers.put("RateLimit-Policy", POLICIES);
        headers.put("RateLimit", "\"per-minute\";r=" + remaining + ";t=" + reset);
        return headers;
    }

    private static List<String> names(HttpAnswer answer) {
        return new ArrayList<>(answer.headers().keySet());
    }

    private static List<String> members(JsonNode body) {
        List<String> names = new ArrayList<>();
        body.fieldNames().forEachRemaining(names::add);
        return names;
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.runtime.Enforcer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator API of real enforcers with a token file: probes open, everything else only with a
 * valid token; an instance forwards the caller's token to the owner of a key, which checks it; and
 * listed keys are masked on every instance alike.
 */
@ExtendWith(KafkaBroker.class)
class OperatorApiSecurityIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String ALICE = "alice-token-0123456789abcdef";
    private static final String BOB = "bob-token-0123456789abcdef";
    private static final Instant HOUR = Instant.parse("2026-01-05T11:00:00Z");
    private static final int PARTITIONS = 4;
    private static final int QUOTA = 10;

    @Test
    void withATokenFileOnlyTheProbesAnswerACallerWithoutAValidToken(TestCluster cluster, @TempDir Path dir)
            throws Exception {
        Path tokens = Files.writeString(dir.resolve("tokens.txt"), "# operators\nalice:" + ALICE + "\n");
        cluster.createTopics(1);
        cluster.putPlan(TestCluster.BASIC_PLAN);
        cluster.assign("k-1", "basic");
        try (Enforcer enforcer = cluster.startEnforcer("a", dir.resolve("state"),
                Map.of(EnforcerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens.toString()))) {
            TestCluster.awaitAssignment(enforcer, "k-1", "basic");
            for (String probe : List.of("/health", "/health/live", "/health/ready")) {
                assertEquals(200, send(enforcer, probe, null).statusCode(), probe + " is open to probes");
            }
            for (String path : List.of("/usage/k-1", "/plans", "/plans/basic/usage", "/exceeded", "/metrics")) {
                assertUnauthorized(send(enforcer, path, null), null);
                assertUnauthorized(send(enforcer, path, BOB), "invalid_token");
                assertEquals(200, send(enforcer, path, ALICE).statusCode(), path + " with alice's token");
            }
        }
    }

    @Test
    void anInstanceForwardsTheCallersTokenToTheKeysOwnerWhichChecksItAndBothListKeysMasked(
            TestCluster cluster, @TempDir Path dir) throws Exception {
        // Alice's token is good on both instances, Bob's only on a: a request b owns, asked of a with Bob's
        // token, is refused by b, which shows that b checks the token a forwards.
        Path tokensA = Files.writeString(dir.resolve("a.txt"), "alice:" + ALICE + "\nbob:" + BOB + "\n");
        Path tokensB = Files.writeString(dir.resolve("b.txt"), "alice:" + ALICE + "\n");
        cluster.createTopics(PARTITIONS);
        cluster.putPlan("""
                {"id": "metered", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": %d, "window": "PT1H"}}"""
                .formatted(QUOTA));
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            keys.add("customer-key-" + k);
            cluster.assign(keys.get(k), "metered");
        }
        try (Enforcer a = cluster.startEnforcer("a", dir.resolve("state-a"), secured(tokensA));
             Enforcer b = cluster.startEnforcer("b", dir.resolve("state-b"), secured(tokensB))) {
            cluster.awaitRequestPartitionsSplit(a, b, PARTITIONS);
            for (String key : keys) {
                TestCluster.awaitAssignment(a, key, "metered");
                TestCluster.awaitAssignment(b, key, "metered");
            }
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int k = 0; k < keys.size(); k++) {
                for (int i = 0; i < QUOTA + 2; i++) {
                    // Request ids are shown as the gateway chose them: these do not spell out their key.
                    records.add(TestCluster.request(cluster.topics(), keys.get(k), "r-" + k + "-" + i, 1,
                            HOUR.plusSeconds(i).toString()));
                }
            }
            cluster.send(records);
            cluster.awaitDecisions(keys.size() * (QUOTA + 2));

            String self = "localhost:" + a.httpPort();
            Set<String> answeredBy = new HashSet<>();
            for (String key : keys) {
                HttpResponse<String> answer = send(a, "/usage/" + key + "?at=" + HOUR.plusSeconds(60), ALICE);
                assertEquals(200, answer.statusCode(), key + ": " + answer.body());
                String owner = JSON.readTree(answer.body()).get("instance").asText();
                answeredBy.add(owner);
                HttpResponse<String> asBob = send(a, "/usage/" + key, BOB);
                if (owner.equals(self)) {
                    assertEquals(200, asBob.statusCode(), key + " owned by a, asked with Bob's token: " + asBob.body());
                } else {
                    assertUnauthorized(asBob, "invalid_token");
                }
                assertUnauthorized(send(a, "/usage/" + key, null), null);
            }
            assertEquals(Set.of(self, "localhost:" + b.httpPort()), answeredBy,
                    "a answered for b's keys by forwarding alice's token to b");

            Set<String> masked = new TreeSet<>(keys.stream().map(OperatorApiSecurityIT::masked).toList());
            HttpResponse<String> plan = send(a, "/plans/metered/usage?hour=" + HOUR + "&limit=100", ALICE);
            JsonNode usage = JSON.readTree(plan.body());
            assertEquals(0, usage.get("unreachable").size(), plan.body());
            Set<String> listed = new TreeSet<>();
            usage.get("topKeys").forEach(key -> listed.add(key.get("apiKey").asText()));
            assertEquals(masked, listed, "the keys of both instances, each masked");
            assertNoKeyIn(plan.body(), keys);

            TestCluster.awaitCondition("recent quota-exceeded events list every key, masked", () -> {
                HttpResponse<String> exceeded = send(a, "/exceeded?limit=100", ALICE);
                Set<String> events = new TreeSet<>();
                readTree(exceeded.body()).get("events").forEach(e -> events.add(e.get("apiKey").asText()));
                assertNoKeyIn(exceeded.body(), keys);
                return events.equals(masked);
            }, Duration.ofSeconds(30));
        }
    }

    /** The mask as the README defines it, written here from that definition. */
    static String masked(String apiKey) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(apiKey.getBytes(StandardCharsets.UTF_8));
            return (apiKey.length() >= 12 ? apiKey.substring(0, 4) : "") + "…" + HexFormat.of().formatHex(digest, 0, 4);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static Map<String, Object> secured(Path tokens) {
        return Map.of(EnforcerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens.toString(),
                EnforcerConfig.HTTP_MASK_API_KEYS_CONFIG, true);
    }

    private static void assertNoKeyIn(String body, List<String> keys) {
        for (String key : keys) {
            assertFalse(body.contains(key), key + " unmasked in " + body);
        }
    }

    private static void assertUnauthorized(HttpResponse<String> answer, String error) throws IOException {
        assertEquals(401, answer.statusCode(), answer.uri() + ": " + answer.body());
        assertEquals("Bearer realm=\"quota-enforcer\"" + (error == null ? "" : ", error=\"" + error + "\""),
                answer.headers().firstValue("WWW-Authenticate").orElse(""));
        assertEquals("application/problem+json", answer.headers().firstValue("Content-Type").orElse(""));
        assertEquals(401, JSON.readTree(answer.body()).get("status").asInt());
    }

    private static JsonNode readTree(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError(body, e);
        }
    }

    private static HttpResponse<String> send(Enforcer enforcer, String path, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + enforcer.httpPort() + path));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(path, e);
        }
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.runtime.Enforcer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The usage topic, the HTTP API of two instances and their metrics agree with a count of the
 * decisions made independently, by reading the decisions topic; either instance answers for any key.
 */
@ExtendWith(KafkaBroker.class)
class OperatorApiIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final int PARTITIONS = 6;
    private static final int KEYS = 12;
    private static final int PER_KEY = 20;
    private static final int QUOTA = 15;
    private static final Instant HOUR = Instant.parse("2026-01-05T10:00:00Z");

    /** What the decisions topic says one key was allowed and denied. */
    private record Count(long allowed, long denied, long allowedCost, long deniedCost, long quotaDenied) {
        Count plus(Decision decision, long cost) {
            return decision.allowed() ? new Count(allowed + 1, denied, allowedCost + cost, deniedCost, quotaDenied)
                    : new Count(allowed, denied + 1, allowedCost, deniedCost + cost,
                    quotaDenied + (decision.reason() == Reason.QUOTA_EXCEEDED ? 1 : 0));
        }
    }

    @Test
    void usageTopicHttpAnswersAndMetricsAgreeWithAnIndependentCountOfTheDecisions(
            TestCluster cluster, @TempDir Path dirA, @TempDir Path dirB) throws Exception {
        long started = System.currentTimeMillis();
        cluster.createTopics(PARTITIONS);
        cluster.putPlan("""
                {"id": "metered",
                 "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 1000, "window": "PT1M"}],
                 "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": %d, "window": "PT1H"}}"""
                .formatted(QUOTA));
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            keys.add("key-" + k);
            cluster.assign("key-" + k, "metered");
        }

        try (Enforcer a = cluster.startEnforcer("a", dirA); Enforcer b = cluster.startEnforcer("b", dirB)) {
            cluster.awaitRequestPartitionsSplit(a, b, PARTITIONS);
            for (String key : keys) {
                TestCluster.awaitAssignment(a, key, "metered");
                TestCluster.awaitAssignment(b, key, "metered");
            }
            Map<String, Long> costs = new HashMap<>();
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int i = 0; i < PER_KEY; i++) {
                for (int k = 0; k < KEYS; k++) {
                    // Costs vary by key and request so that counting requests instead of cost shows.
                    long cost = 1 + (i + k) % 3;
                    String id = keys.get(k) + "-" + i;
                    costs.put(id, cost);
                    records.add(TestCluster.request(cluster.topics(), keys.get(k), id, cost, HOUR.plusSeconds(60L * i).toString()));
                }
            }
            cluster.send(records);

            Map<String, Count> expected = new TreeMap<>();
            for (Decision decision : cluster.awaitDecisions(KEYS * PER_KEY)) {
                expected.merge(decision.apiKey(), new Count(0, 0, 0, 0, 0).plus(decision, costs.get(decision.requestId())),
                        (x, y) -> new Count(x.allowed + y.allowed, x.denied + y.denied, x.allowedCost + y.allowedCost,
                                x.deniedCost + y.deniedCost, x.quotaDenied + y.quotaDenied));
            }
            assertTrue(expected.values().stream().allMatch(c -> c.denied > 0 && c.allowed > 0),
                    "every key ran into its quota: " + expected);

            try {
                TestCluster.awaitCondition("the usage topic's latest record per key and hour matches the count", () ->
                        expected.equals(latestUsage(cluster)), Duration.ofSeconds(30));
            } catch (AssertionError e) {
                Map<String, Count> latest = latestUsage(cluster);
                StringBuilder stores = new StringBuilder();
                for (String key : keys) {
                    if (!expected.get(key).equals(latest.get(key))) {
                        stores.append("\n").append(key).append(" in the owner's store: ").append(get(a, "/usage/" + key
                                + "?at=" + HOUR.plus(Duration.ofMinutes(30))).get("hour"));
                    }
                }
                assertEquals(expected, latest, e.getMessage() + stores);
            }
            // The hour is months old: stamped with it, the figures could be deleted by retention once their segment rolls.
            assertTrue(cluster.readAll(cluster.topics().usage()).stream().allMatch(r -> r.timestamp() >= started),
                    "usage records carry the time they were written");

            Set<String> answeredBy = new HashSet<>();
            Instant midHour = HOUR.plus(Duration.ofMinutes(30));
            for (String key : keys) {
                JsonNode fromA = get(a, "/usage/" + key + "?at=" + midHour);
                JsonNode fromB = get(b, "/usage/" + key + "?at=" + midHour);
                assertEquals(fromA, fromB, "both instances give the owner's answer for " + key);
                Count count = expected.get(key);
                JsonNode hour = fromA.get("hour");
                assertEquals(count, new Count(hour.get("allowed").asLong(), hour.get("denied").asLong(),
                        hour.get("allowedCost").asLong(), hour.get("deniedCost").asLong(), hour.get("quotaDenied").asLong()), key);
                JsonNode quota = fromA.get("policies").get(1);
                assertEquals("hourly", quota.get("name").asText());
                assertEquals(count.allowedCost, quota.get("used").asLong(), key + ": the quota used is the cost allowed");
                assertEquals(QUOTA - count.allowedCost, quota.get("remaining").asLong(), key);
                assertEquals(1800, quota.get("resetSeconds").asLong(), key + ": the hour ends 30 minutes after " + midHour);
                answeredBy.add(fromA.get("instance").asText());
            }
            assertEquals(Set.of("localhost:" + a.httpPort(), "localhost:" + b.httpPort()), answeredBy,
                    "keys are owned by both instances, and each answered for the other's keys by forwarding");

            JsonNode plan = get(b, "/plans/metered/usage?hour=" + HOUR + "&at=" + midHour + "&limit=5");
            JsonNode usage = plan.get("usage");
            assertEquals(KEYS, usage.get("activeKeys").asLong());
            assertEquals(expected.values().stream().mapToLong(Count::allowed).sum(), usage.get("allowed").asLong());
            assertEquals(expected.values().stream().mapToLong(Count::denied).sum(), usage.get("denied").asLong());
            assertEquals(expected.values().stream().filter(c -> c.quotaDenied > 0).count(), usage.get("keysOverQuota").asLong());
            assertEquals(0, plan.get("unreachable").size(), plan.toString());
            assertEquals(5, plan.get("topKeys").size(), "the limit is kept after merging both instances' keys");
            JsonNode top = plan.get("topKeys").get(0);
            assertEquals(expected.get(top.get("apiKey").asText()).allowedCost, top.get("quotaUsed").asLong());

            assertEquals("metered", get(a, "/plans").get("plans").get(0).get("id").asText());
            assertProblem(send(a, "/usage/key-0?at=yesterday"), 400, "at=yesterday");
            assertProblem(send(b, "/usage/no-such-key"), 404, "no-such-key");
            assertProblem(send(a, "/plans/no-such-plan/usage"), 404, "no-such-plan");
            assertProblem(send(a, "/plans/metered/usage?limit=0"), 400, "limit=0");
            assertEquals("UP", get(a, "/health").get("status").asText());

            String metricsA = text(a, "/metrics");
            String metricsB = text(b, "/metrics");
            assertEquals(KEYS * PER_KEY, sum(metricsA, "quota_decisions_total", "metered") + sum(metricsB,
                    "quota_decisions_total", "metered"), "decisions counted in the metrics of both instances");
            assertEquals(expected.values().stream().mapToLong(Count::quotaDenied).sum(),
                    sum(metricsA, "quota_decisions_total", "QUOTA_EXCEEDED") + sum(metricsB, "quota_decisions_total",
                            "QUOTA_EXCEEDED"));
            assertEquals(KEYS, sum(metricsA, "quota_exceeded_events_total", "metered")
                    + sum(metricsB, "quota_exceeded_events_total", "metered"), "one quota-exceeded event per key");
            assertTrue(sum(metricsA, "quota_decision_lag_seconds_count", "") > 0, metricsA);
            assertTrue(metricsA.contains("kafka_stream_thread_process_total"), "Kafka Streams' own metrics are exported");

            TestCluster.awaitCondition("recent quota-exceeded events list every key", () -> {
                Set<String> listed = new HashSet<>();
                get(a, "/exceeded?limit=100").get("events").forEach(e -> listed.add(e.get("apiKey").asText()));
                return listed.equals(Set.copyOf(keys));
            }, Duration.ofSeconds(30));
        }
    }

    private static void assertProblem(HttpResponse<String> response, int status, String named) throws IOException {
        assertEquals(status, response.statusCode(), response.body());
        assertEquals("application/problem+json", response.headers().firstValue("Content-Type").orElse(""));
        JsonNode problem = JSON.readTree(response.body());
        assertEquals(status, problem.get("status").asInt());
        assertTrue(problem.get("detail").asText().contains(named), problem.toString());
    }

    /** The last usage record of each key in the test's hour, as a count. */
    private static Map<String, Count> latestUsage(TestCluster cluster) {
        Map<String, Count> latest = new TreeMap<>();
        for (ConsumerRecord<String, KeyUsage> record : cluster.readAll(cluster.topics().usage())) {
            KeyUsage usage = record.value();
            if (usage.hour().equals(HOUR)) {
                latest.put(usage.apiKey(), new Count(usage.allowed(), usage.denied(), usage.allowedCost(),
                        usage.deniedCost(), usage.quotaDenied()));
            }
        }
        return latest;
    }

    /** The sum of a Prometheus metric's samples whose line contains {@code label}. */
    private static long sum(String metrics, String name, String label) {
        Matcher samples = Pattern.compile("(?m)^" + name + "(\\{[^}]*})? ([0-9.eE+-]+)$").matcher(metrics);
        double total = 0;
        while (samples.find()) {
            if (samples.group(1) == null ? label.isEmpty() : samples.group(1).contains(label)) {
                total += Double.parseDouble(samples.group(2));
            }
        }
        return Math.round(total);
    }

    private static JsonNode get(Enforcer enforcer, String path) {
        try {
            HttpResponse<String> response = send(enforcer, path);
            assertEquals(200, response.statusCode(), path + ": " + response.body());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError(path, e);
        }
    }

    private static String text(Enforcer enforcer, String path) {
        HttpResponse<String> response = send(enforcer, path);
        assertEquals(200, response.statusCode(), path);
        return response.body();
    }

    private static HttpResponse<String> send(Enforcer enforcer, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + enforcer.httpPort() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(path, e);
        }
    }
}

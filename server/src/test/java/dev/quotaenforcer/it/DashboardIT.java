package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.runtime.Enforcer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The dashboard in a real headless Chromium: it shows what the API returns and follows new traffic live. */
@ExtendWith(KafkaBroker.class)
class DashboardIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Instant HOUR = Instant.parse("2026-01-05T14:00:00Z");
    private static final String PLAN_FIELD = "[data-plan=\"metered\"] [data-field=\"%s\"]";

    @Test
    void dashboardShowsThePlanUsageTheApiReturnsAndUpdatesAfterNewTraffic(TestCluster cluster, @TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(HeadlessChromium.installed(), "Debian's chromium is not installed (.ci/run installs it)");
        cluster.createTopics(2);
        cluster.putPlan("""
                {"id": "metered", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 10, "window": "PT1H"}}""");
        for (int k = 0; k < 4; k++) {
            cluster.assign("key-" + k, "metered");
        }
        try (Enforcer enforcer = cluster.startEnforcer("a", dir.resolve("state"))) {
            for (int k = 0; k < 4; k++) {
                TestCluster.awaitAssignment(enforcer, "key-" + k, "metered");
            }
            send(cluster, Map.of("key-0", 14, "key-1", 5, "key-2", 3), 0);
            String usagePath = "/plans/metered/usage?hour=" + HOUR;
            awaitApi(enforcer, usagePath, 18, 4);

            Files.createDirectories(dir.resolve("chromium"));
            try (HeadlessChromium browser = HeadlessChromium.start(dir.resolve("chromium"), dir.resolve("chromium.log"))) {
                browser.navigate("http://localhost:" + enforcer.httpPort() + "/?hour=" + HOUR + "&refresh=500");
                awaitPage(browser, "18", "4");
                JsonNode usage = get(enforcer, usagePath).get("usage");
                assertEquals(usage.get("activeKeys").asText(), browser.texts(PLAN_FIELD.formatted("activeKeys")).get(0));
                assertEquals(usage.get("keysOverQuota").asText(), browser.texts(PLAN_FIELD.formatted("keysOverQuota")).get(0));
                assertEquals(List.of("key-0", "key-1", "key-2"), browser.texts("#top-keys tr td:first-child"),
                        "keys by share of quota used, the one over quota first");
                assertTrue(browser.texts("#top-keys tr").get(0).contains("10 / 10"), browser.texts("#top-keys tr").toString());
                TestCluster.awaitCondition("the exceeded event of key-0 listed", () -> texts(browser, "#exceeded tr td:nth-child(2)")
                        .contains("key-0"), Duration.ofSeconds(30));
                browser.evaluate("window.loadedOnce = 'yes'");

                send(cluster, Map.of("key-1", 10, "key-3", 2), 100);
                awaitApi(enforcer, usagePath, 25, 9);
                awaitPage(browser, "25", "9");
                assertEquals("yes", browser.evaluate("window.loadedOnce"), "the page updated itself, it was not reloaded");
                assertEquals("4", browser.texts(PLAN_FIELD.formatted("activeKeys")).get(0));
                assertEquals("2", browser.texts(PLAN_FIELD.formatted("keysOverQuota")).get(0));
                assertEquals(List.of("key-1", "key-0", "key-2", "key-3"), browser.texts("#top-keys tr td:first-child"),
                        "both over quota first, key-1 with more requests denied over it (5 against 4)");
            }
        }
    }

    /** Sends {@code count} requests of cost 1 per key, a second apart from {@code firstSecond} into the hour. */
    private static void send(TestCluster cluster, Map<String, Integer> counts, int firstSecond) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        counts.forEach((key, count) -> {
            for (int i = 0; i < count; i++) {
                records.add(TestCluster.request(cluster.topics(), key, key + "-" + (firstSecond + i), 1,
                        HOUR.plusSeconds(firstSecond + i).toString()));
            }
        });
        cluster.send(records);
    }

    private static void awaitApi(Enforcer enforcer, String path, long allowed, long denied) throws InterruptedException {
        TestCluster.awaitCondition("the API reports " + allowed + " allowed and " + denied + " denied", () -> {
            JsonNode usage = get(enforcer, path).get("usage");
            return usage.get("allowed").asLong() == allowed && usage.get("denied").asLong() == denied;
        }, Duration.ofSeconds(30));
    }

    private static void awaitPage(HeadlessChromium browser, String allowed, String denied) throws InterruptedException {
        TestCluster.awaitCondition("the page shows " + allowed + " allowed and " + denied + " denied", () ->
                texts(browser, PLAN_FIELD.formatted("allowed")).equals(List.of(allowed))
                        && texts(browser, PLAN_FIELD.formatted("denied")).equals(List.of(denied)), Duration.ofSeconds(30));
    }

    private static List<String> texts(HeadlessChromium browser, String selector) {
        try {
            return browser.texts(selector);
        } catch (Exception e) {
            throw new AssertionError("cannot read " + selector + " from the page", e);
        }
    }

    private static JsonNode get(Enforcer enforcer, String path) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
                    URI.create("http://localhost:" + enforcer.httpPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), path + ": " + response.body());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new AssertionError(path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(path, e);
        }
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.runtime.Enforcer;
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

/** The dashboard in a real headless Chromium against an API that needs a token and masks keys. */
@ExtendWith(KafkaBroker.class)
class DashboardAuthIT {

    private static final String TOKEN = "dashboard-token-0123456789abcdef";
    private static final Instant HOUR = Instant.parse("2026-01-05T15:00:00Z");
    private static final String KEY = "customer-key-dashboard";

    @Test
    void theDashboardAsksForTheTokenOnceKeepsItOutOfTheUrlAndShowsKeysMasked(TestCluster cluster, @TempDir Path dir)
            throws Exception {
        Assumptions.assumeTrue(HeadlessChromium.installed(), "Debian's chromium is not installed (.ci/run installs it)");
        Path tokens = Files.writeString(dir.resolve("tokens.txt"), "wallboard:" + TOKEN + "\n");
        cluster.createTopics(1);
        cluster.putPlan("""
                {"id": "metered", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 3, "window": "PT1H"}}""");
        cluster.assign(KEY, "metered");
        try (Enforcer enforcer = cluster.startEnforcer("a", dir.resolve("state"), Map.of(
                EnforcerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, tokens.toString(), EnforcerConfig.HTTP_MASK_API_KEYS_CONFIG, true))) {
            TestCluster.awaitAssignment(enforcer, KEY, "metered");
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                records.add(TestCluster.request(cluster.topics(), KEY, "r-" + i, 1, HOUR.plusSeconds(i).toString()));
            }
            cluster.send(records);
            cluster.awaitDecisions(5);

            Files.createDirectories(dir.resolve("chromium"));
            try (HeadlessChromium browser = HeadlessChromium.start(dir.resolve("chromium"), dir.resolve("chromium.log"))) {
                browser.navigate("http://localhost:" + enforcer.httpPort() + "/?hour=" + HOUR + "&refresh=500");
                // Until the page has loaded there is no form: "undefined", and the wait goes on.
                TestCluster.awaitCondition("the page asks for a token", () -> "false".equals(
                        evaluate(browser, "String(document.getElementById('auth')?.hidden)")), Duration.ofSeconds(30));
                evaluate(browser, "document.getElementById('token').value = '" + TOKEN + "';"
                        + "document.getElementById('auth').requestSubmit(); 'submitted'");

                String masked = OperatorApiSecurityIT.masked(KEY);
                TestCluster.awaitCondition("the page lists the key masked, in top keys and exceeded events", () ->
                        texts(browser, "#top-keys tr td:first-child").equals(List.of(masked))
                                && texts(browser, "#exceeded tr td:nth-child(2)").equals(List.of(masked)),
                        Duration.ofSeconds(30));
                assertEquals(List.of("3"), texts(browser, "[data-plan=\"metered\"] [data-field=\"allowed\"]"));
                assertEquals("true", evaluate(browser, "String(document.getElementById('auth').hidden)"),
                        "the token was taken: the page no longer asks");
                assertFalse(evaluate(browser, "location.href").contains(TOKEN), "the token is not in the URL");
                assertFalse(evaluate(browser, "document.documentElement.outerHTML").contains(KEY), "no unmasked key");
            }
        }
    }

    private static String evaluate(HeadlessChromium browser, String expression) {
        try {
            return browser.evaluate(expression);
        } catch (Exception e) {
            throw new AssertionError("cannot evaluate " + expression, e);
        }
    }

    private static List<String> texts(HeadlessChromium browser, String selector) {
        try {
            return browser.texts(selector);
        } catch (Exception e) {
            throw new AssertionError("cannot read " + selector + " from the page", e);
        }
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.RepositoryFiles;
import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard and Prometheus alert rules of {@code deploy/} against a real Prometheus scraping a
 * real enforcer process and a gateway process under the JMX exporter with {@code gateway-jmx-exporter.yml}:
 * promtool accepts the rules, Prometheus loads them healthy, and every panel's and rule's expression finds
 * series the enforcer and the gateway export.
 */
@ExtendWith(KafkaBroker.class)
class MonitoringIT {

    private static final Path RULES = RepositoryFiles.path("deploy", "prometheus", "alerts.yml");
    private static final Path DASHBOARD = RepositoryFiles.path("deploy", "grafana", "quota-enforcer-dashboard.json");
    private static final Path GATEWAY_EXPORTER = RepositoryFiles.path("deploy", "prometheus", "gateway-jmx-exporter.yml");
    /** The Prometheus JMX exporter's agent, which the build copies here (server/pom.xml). */
    private static final Path EXPORTER_AGENT = Path.of("target", "agents", "jmx_prometheus_javaagent.jar");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** The job name the rules select on, as docs/monitoring.md tells operators to scrape under. */
    private static final String JOB = "quota-enforcer";
    private static final String GATEWAY_JOB = "quota-gateways";
    private static final String PLAN = "metered";
    private static final int QUOTA = 5;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * A rule's trailing threshold comparison ({@code > 1000}, {@code != 2}, {@code == 0}). Every rule in the
     * file is written as {@code <base> <comparison> <number>} (its header says so); a healthy enforcer
     * makes most comparisons empty, so the test evaluates the base expression and separately checks the
     * comparisons it can know the outcome of.
     */
    private static final Pattern THRESHOLD = Pattern.compile("\\s*(==|!=|>=|<=|>|<)\\s*[0-9.eE+-]+\\s*$");
    /** A Grafana variable query, {@code label_values(<selector>, <label>)}. */
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.+),\\s*(\\w+)\\)");

    @Test
    void everyPanelAndAlertExpressionFindsTheEnforcersSeriesInARealPrometheusAndTheRulesLoadHealthy(
            TestCluster cluster, @TempDir Path work) throws Exception {
        Path prometheus = JarProcess.onPath("prometheus");
        Path promtool = JarProcess.onPath("promtool");
        Assumptions.assumeTrue(prometheus != null,
                "prometheus not found on PATH (.ci/run installs it with Debian's prometheus package)");
        Assumptions.assumeTrue(promtool != null,
                "promtool not found on PATH (.ci/run installs it with Debian's prometheus package)");

        JarProcess.Result check = JarProcess.run(List.of(promtool.toString(), "check", "rules", RULES.toString()),
                work.resolve("promtool.log"), Map.of(), null, Duration.ofSeconds(60));
        assertEquals(0, check.status(), "promtool check rules " + RULES + ":\n" + check.output());
        Matcher found = Pattern.compile("SUCCESS: (\\d+) rules found").matcher(check.output());
        assertTrue(found.find(), check.output());
        int ruleCount = Integer.parseInt(found.group(1));

        cluster.createTopics(2);
        cluster.putPlan("""
                {"id": "%s", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": %d, "window": "PT1H"}}"""
                .formatted(PLAN, QUOTA));
        List<String> keys = List.of("key-0", "key-1");
        for (String key : keys) {
            cluster.assign(key, PLAN);
        }
        try (EnforcerJvm enforcer = EnforcerJvm.start(cluster, cluster.applicationId(), "a", work.resolve("state"), work,
                Map.of()).awaitReady()) {
            for (String key : keys) {
                TestCluster.awaitCondition(key + "'s plan in force", () -> enforcer.knowsPlanOf(key), WAIT);
            }
            assertTrue(Files.isRegularFile(EXPORTER_AGENT), EXPORTER_AGENT.toAbsolutePath() + " is missing: mvn verify copies it");
            int gatewayPort = EmbeddedKafka.freePort();
            JarProcess gateway = JarProcess.start(List.of(JarProcess.JAVA,
                    "-javaagent:" + EXPORTER_AGENT + "=127.0.0.1:" + gatewayPort + ":" + GATEWAY_EXPORTER,
                    "-cp", System.getProperty("java.class.path"), UnansweredGateway.class.getName(),
                    cluster.bootstrapServers(), cluster.prefix() + "unanswered-requests", cluster.prefix() + "unanswered-replies"),
                    work.resolve("gateway.log"), Map.of(), null);
            int port = EmbeddedKafka.freePort();
            String target = "localhost:" + enforcer.httpPort();
            Path config = work.resolve("prometheus.yml");
            Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    rule_files:
                      - %s
                    scrape_configs:
                      - job_name: %s
                        static_configs:
                          - targets: ["%s"]
                      - job_name: %s
                        static_configs:
                          - targets: ["127.0.0.1:%d"]
                    """.formatted(RULES.toAbsolutePath(), JOB, target, GATEWAY_JOB, gatewayPort));
            try (gateway; JarProcess server = JarProcess.start(List.of(prometheus.toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + work.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + port),
                    work.resolve("prometheus.log"), Map.of(), null)) {
                Prometheus api = new Prometheus(port, server);
                api.awaitReady();
                api.awaitNonEmpty("up{job=\"" + JOB + "\"} == 1");
                api.awaitNonEmpty("up{job=\"" + GATEWAY_JOB + "\"} == 1");

                // Two rounds, each scraped before the next: a counter's first sample shows no increase to
                // rate(), so only a second round makes the rates of the quota_* counters non-zero.
                int sent = 0;
                List<Decision> decisions = List.of();
                for (int round = 0; round < 2; round++) {
                    sent += sendRound(cluster, keys, round);
                    decisions = cluster.awaitDecisions(sent);
                    assertEquals(sent, decisions.size());
                    cluster.awaitRecords(cluster.topics().deadLetter(), round + 1);
                    api.awaitValue("sum(quota_decisions_total{job=\"" + JOB + "\"})", sent);
                    api.awaitValue("sum(quota_dead_letters_total{job=\"" + JOB + "\", source=\"request\"})", round + 1);
                }
                // A series first made in the last round (the quota's denials start there) has one sample until the next
                // scrape, and rate() over one sample is empty: each series of the counters the panels rate needs two.
                for (String meter : List.of("quota_decisions_total", "quota_exceeded_events_total", "quota_dead_letters_total")) {
                    api.awaitNonEmpty("min(count_over_time(" + meter + "{job=\"" + JOB + "\"}[1m])) >= 2");
                }
                for (String meter : List.of("quota_client_checks_total", "quota_client_decided_by_failure_policy_total",
                        "quota_client_mismatched_replies_total")) {
                    api.awaitNonEmpty("min(count_over_time(" + meter + "{job=\"" + GATEWAY_JOB
                            + "\", client=\"unanswered-gateway\"}[1m])) >= 2");
                }
                Set<Reason> reasons = decisions.stream().map(Decision::reason).collect(Collectors.toSet());
                assertEquals(Set.of(Reason.OK, Reason.QUOTA_EXCEEDED, Reason.UNKNOWN_API_KEY), reasons,
                        "the traffic was allowed, denied by the quota and denied as unknown");

                List<String> empty = new ArrayList<>();
                JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
                assertEquals(39, dashboard.get("schemaVersion").asInt());
                // What Grafana would substitute with this instance and plan selected; the windows are wide enough to
                // hold both rounds' scrapes (Grafana's own $__rate_interval at a 1 s scrape would be seconds).
                Map<String, String> variables = Map.of("$__rate_interval", "1m", "$__range", "5m", "$job", JOB,
                        "$instance", target, "$plan", PLAN);
                Map<String, String> panelExpressions = panelExpressions(dashboard.get("panels"));
                assertTrue(panelExpressions.size() > 20, "the dashboard's targets: " + panelExpressions.keySet());
                panelExpressions.forEach((panel, expr) -> {
                    String query = substitute(expr, variables);
                    if (api.query(query).isEmpty()) {
                        empty.add(panel + ": " + query);
                    }
                });
                for (JsonNode variable : dashboard.get("templating").get("list")) {
                    if (variable.get("type").asText().equals("query")) {
                        Matcher labelValues = LABEL_VALUES.matcher(variable.get("definition").asText());
                        assertTrue(labelValues.matches(), variable.toString());
                        String query = "count by (" + labelValues.group(2) + ") ("
                                + substitute(labelValues.group(1), variables) + ")";
                        if (api.query(query).isEmpty()) {
                            empty.add("variable " + variable.get("name").asText() + ": " + query);
                        }
                    }
                }

                List<JsonNode> rules = api.awaitRulesEvaluated(ruleCount);
                Map<String, String> ruleQueries = new LinkedHashMap<>();
                for (JsonNode rule : rules) {
                    assertEquals("ok", rule.get("health").asText(), rule.toString());
                    String query = rule.get("query").asText();
                    String base = THRESHOLD.matcher(query).replaceFirst("");
                    assertNotEquals(query, base, rule.get("name").asText() + " ends in a threshold comparison");
                    ruleQueries.put(rule.get("name").asText(), query);
                    if (api.query(base).isEmpty()) {
                        empty.add("rule " + rule.get("name").asText() + ": " + base);
                    }
                }
                assertEquals(List.of(), empty, "expressions that found no series");

                // The comparisons whose outcome the test knows: the enforcer is up and running, and it dead-lettered.
                assertEquals(0, api.query(ruleQueries.get("QuotaEnforcerDown")).size());
                assertEquals(0, api.query(ruleQueries.get("QuotaEnforcerStreamsNotRunning")).size());
                assertEquals(1, api.query(ruleQueries.get("QuotaEnforcerDeadLetters")).size());
                assertEquals(1, api.query(ruleQueries.get("QuotaGatewayAnswersFromFailurePolicy")).size(),
                        "the gateway's checks are all answered by its failure policy");
                TestCluster.awaitCondition("QuotaEnforcerDeadLetters pending or firing",
                        () -> Set.of("pending", "firing").contains(api.ruleState("QuotaEnforcerDeadLetters")), WAIT);

                enforcer.stop();
                api.awaitNonEmpty(ruleQueries.get("QuotaEnforcerDown"));
            }
        }
    }

    /**
     * Publishes a round of traffic: three requests a key in the first round (allowed), four in the second
     * (two allowed, then the quota of five denies), one for a key with no plan, and one unreadable record.
     * Returns the number of decisions it will produce.
     */
    private static int sendRound(TestCluster cluster, List<String> keys, int round) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        int perKey = round == 0 ? 3 : 4;
        for (String key : keys) {
            for (int i = 0; i < perKey; i++) {
                records.add(TestCluster.request(cluster.topics(), key, key + "-" + round + "-" + i, 1, null));
            }
        }
        records.add(TestCluster.request(cluster.topics(), "stranger", "stranger-" + round, 1, null));
        records.add(new ProducerRecord<>(cluster.topics().requests().name(), TestCluster.bytes("key-0"),
                new byte[] {(byte) 0x8f, 0x01, (byte) 0xfa}));
        cluster.send(records);
        return keys.size() * perKey + 1;
    }

    /** Every target expression of the panels (rows' nested panels included), by panel title and refId. */
    private static Map<String, String> panelExpressions(JsonNode panels) {
        Map<String, String> expressions = new LinkedHashMap<>();
        for (JsonNode panel : panels) {
            if (panel.has("panels")) {
                expressions.putAll(panelExpressions(panel.get("panels")));
            }
            for (JsonNode target : panel.path("targets")) {
                expressions.put(panel.get("title").asText() + " " + target.get("refId").asText(), target.get("expr").asText());
            }
        }
        return expressions;
    }

    /** Grafana's substitution of the variables the test gives a value, failing on any left over. */
    private static String substitute(String expr, Map<String, String> variables) {
        String query = expr;
        for (Map.Entry<String, String> variable : variables.entrySet()) {
            query = query.replace(variable.getKey(), variable.getValue());
        }
        assertFalse(query.contains("$"), "a variable the test does not know in " + expr);
        return query;
    }

    /** Prometheus's HTTP API. */
    private record Prometheus(int port, JarProcess process) {

        /** The instant query's result vector (a scalar counts as one result). */
        List<JsonNode> query(String promql) {
            JsonNode data = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8), promql);
            List<JsonNode> result = new ArrayList<>();
            if (data.get("resultType").asText().equals("scalar")) {
                result.add(data.get("result"));
            } else {
                data.get("result").forEach(result::add);
            }
            return result;
        }

        /** Waits until it answers /-/ready; fails with its output if it exits or takes too long. */
        void awaitReady() throws InterruptedException {
            TestCluster.awaitCondition("Prometheus ready or exited", () -> process.awaitExit(Duration.ZERO).isPresent()
                    || ready(), WAIT);
            assertTrue(process.awaitExit(Duration.ZERO).isEmpty(), "Prometheus exited; its output:\n" + process.output());
        }

        private boolean ready() {
            try {
                return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        void awaitNonEmpty(String promql) throws InterruptedException {
            TestCluster.awaitCondition("Prometheus answers " + promql + " with a series", () -> !query(promql).isEmpty(),
                    WAIT);
        }

        /** Waits until the query's single sample has this value. */
        void awaitValue(String promql, double value) throws InterruptedException {
            TestCluster.awaitCondition("Prometheus answers " + promql + " = " + value, () -> {
                List<JsonNode> result = query(promql);
                return result.size() == 1 && result.get(0).get("value").get(1).asDouble() == value;
            }, WAIT);
        }

        /** The loaded rules, once {@code count} of them have been evaluated at least once. */
        List<JsonNode> awaitRulesEvaluated(int count) throws InterruptedException {
            TestCluster.awaitCondition(count + " rules loaded and evaluated", () -> {
                List<JsonNode> rules = rules();
                return rules.size() == count && rules.stream().noneMatch(r -> r.get("health").asText().equals("unknown"));
            }, WAIT);
            return rules();
        }

        String ruleState(String name) {
            return rules().stream().filter(r -> r.get("name").asText().equals(name)).findFirst()
                    .map(r -> r.get("state").asText()).orElseThrow(() -> new AssertionError("no rule " + name));
        }

        private List<JsonNode> rules() {
            List<JsonNode> rules = new ArrayList<>();
            get("/api/v1/rules", "rules").get("groups").forEach(group -> group.get("rules").forEach(rules::add));
            return rules;
        }

        private JsonNode get(String path, String what) {
            try {
                HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + path)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                JsonNode body = JSON.readTree(response.body());
                assertEquals("success", body.path("status").asText(), what + ": " + response.body());
                return body.get("data");
            } catch (IOException e) {
                throw new AssertionError("Prometheus did not answer " + what + "; its output:\n" + process.output(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(what, e);
            }
        }
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.broker.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `java -jar quota-enforcer.jar run` as the README starts it: seeds, decides a kcat request, stops on SIGTERM, resumes. */
class RunCommandIT {

    private static final Duration READY_WAIT = Duration.ofSeconds(90);
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);
    private static final Duration DECISION_WAIT = Duration.ofSeconds(60);
    private static final String READY = "quota-enforcer ready";
    private static final String REQUESTS = "quota.requests";
    private static final String DECISIONS = "quota.decisions";
    /** A logback line at level ERROR (pattern {@code %d{HH:mm:ss.SSS} %-5level ...}), or anything printed as ERROR. */
    private static final Pattern ERROR_LINE = Pattern.compile("(?m)^(\\d\\d:\\d\\d:\\d\\d\\.\\d{3} )?ERROR\\b");
    private static final Pattern STACK_TRACE = Pattern.compile("(?m)^(\\s+at [\\w$.]+\\(|Caused by: |Exception in thread )");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void runSeedsDecidesAKcatRequestStopsCleanlyOnSigtermAndKeepsCountingAfterARestart() throws Exception {
        Path dataDir = work.resolve("data");
        int port = EmbeddedKafka.freePort();
        int controllerPort = freePortOtherThan(port);
        int httpPort = freePortOtherThan(port, controllerPort);
        String bootstrap = "localhost:" + port;
        String[] run = {"-Xmx512m", "-jar", JarProcess.JAR.toString(), "run", "--data-dir", dataDir.toString(),
                "--port", String.valueOf(port), "--controller-port", String.valueOf(controllerPort),
                "--set", "quota.http.port=" + httpPort};

        JsonNode first;
        long started = System.nanoTime();
        try (JarProcess enforcer = JarProcess.java(work.resolve("first-run.log"), Map.of(), run)) {
            awaitReady(enforcer, "first start");
            log("first start ready in " + millisSince(started) + " ms (pid " + enforcer.pid() + ")");
            String output = enforcer.output();
            for (String plan : List.of("free", "pro", "trial")) {
                assertTrue(output.contains("Loaded sample plan " + plan + " from seed/plans/" + plan + ".json"),
                        "sample plan " + plan + " loaded on first start:\n" + output);
            }
            assertTrue(Pattern.compile("Assigned sample API keys \\{.*demo-free=free").matcher(output).find()
                    && output.contains("demo-pro=pro") && output.contains("demo-trial=trial"),
                    "sample keys assigned on first start:\n" + output);

            // "ready" on a first start means the seeds are in force: a request sent at once is decided on its plan.
            long produced = System.nanoTime();
            produce(bootstrap, "r-kcat-1", null);
            first = awaitDecision(bootstrap, "r-kcat-1");
            log("decision for r-kcat-1 in " + millisSince(produced) + " ms: " + first);
            assertTrue(first.path("allowed").asBoolean(), "r-kcat-1 is allowed: " + first);
            assertEquals("free", first.path("plan").asText(), "demo-free is on the sample plan free");
            assertEquals("OK", first.path("reason").asText());
            assertEquals("demo-free", first.path("apiKey").asText());
            assertPlansInForce(bootstrap, List.of("free", "pro", "trial"));
            assertKeysInForce(bootstrap, Map.of("demo-free", "free", "demo-pro", "pro", "demo-trial", "trial"));

            assertEquals("UP", parse(httpGet(httpPort, "/health")).path("status").asText());
            JsonNode usage = parse(httpGet(httpPort, "/usage/demo-free?at=" + first.path("eventTime").asText()));
            assertEquals("free", usage.path("plan").asText(), usage.toString());
            assertEquals(first.path("remaining").asLong(), usage.path("policies").get(0).path("remaining").asLong(),
                    "the HTTP API shows what the decision left: " + usage);
            assertTrue(httpGet(httpPort, "/metrics").contains("quota_decisions_total{plan=\"free\",reason=\"OK\"} 1.0"),
                    "the decision is counted in the Prometheus metrics");

            stopWithSigterm(enforcer, "first start");
        }

        started = System.nanoTime();
        try (JarProcess enforcer = JarProcess.java(work.resolve("second-run.log"), Map.of(), run)) {
            awaitReady(enforcer, "restart");
            log("restart ready in " + millisSince(started) + " ms (pid " + enforcer.pid() + ")");
            String output = enforcer.output();
            assertFalse(output.contains("Loaded sample plan"), "the seeds load on first start only:\n" + output);
            assertFalse(output.contains("Assigned sample API keys"), "the seeds load on first start only:\n" + output);
            assertFalse(output.contains("Created topic"), "the topics survived the restart:\n" + output);

            // At the first request's event time, so both fall in the same per-minute window whatever the wall
            // clock did during the restart: the remaining count can then only drop by this one request.
            String eventTime = first.path("eventTime").asText();
            produce(bootstrap, "r-kcat-2", eventTime);
            JsonNode second = awaitDecision(bootstrap, "r-kcat-2");
            log("decision for r-kcat-2 after restart: " + second);
            assertTrue(second.path("allowed").asBoolean(), "r-kcat-2 is allowed: " + second);
            assertEquals("free", second.path("plan").asText());
            assertEquals(eventTime, second.path("eventTime").asText(), "decided at the first request's time");
            assertEquals(first.path("policy").asText(), second.path("policy").asText(), "same binding policy");
            assertEquals(first.path("remaining").asLong() - 1, second.path("remaining").asLong(),
                    "the count survived the restart: one fewer remaining than after r-kcat-1");
            stopWithSigterm(enforcer, "restart");
        }
    }

    static void awaitReady(JarProcess enforcer, String which) {
        if (!enforcer.awaitOutput(READY, READY_WAIT)) {
            fail(which + ": no '" + READY + "' within " + READY_WAIT + " (process alive: "
                    + enforcer.awaitExit(Duration.ZERO).isEmpty() + "); output:\n" + enforcer.output());
        }
    }

    /**
     * Publishes {@code {"requestId": ..., "apiKey": "demo-free"}} keyed by the API key, with kcat as
     * the README shows when it is installed (librdkafka's partitioner, so the enforcer re-keys it),
     * else with the Java producer.
     */
    private void produce(String bootstrap, String requestId, String timestamp) throws Exception {
        String event = "{\"requestId\": \"" + requestId + "\", \"apiKey\": \"demo-free\""
                + (timestamp == null ? "" : ", \"timestamp\": \"" + timestamp + "\"") + "}";
        Path kcat = JarProcess.onPath("kcat");
        if (kcat == null) {
            log("kcat is not available on the PATH: producing " + requestId + " with the Java producer instead");
            Map<String, Object> settings = new HashMap<>();
            settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            settings.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<String, String> producer =
                         new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(REQUESTS, "demo-free", event)).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("the Java producer failed: " + e.getCause(), e.getCause());
            }
            return;
        }
        List<String> command = List.of(kcat.toString(), "-P", "-b", bootstrap, "-t", REQUESTS, "-K:");
        JarProcess.Result result = JarProcess.run(command, work.resolve("kcat-" + requestId + ".log"), Map.of(),
                "demo-free:" + event + "\n", Duration.ofSeconds(30));
        assertEquals(0, result.status(), "kcat -P exit status; output:\n" + result.output());
        log("produced " + requestId + " with kcat (" + kcat + "): " + String.join(" ", command));
    }

    /** Reads quota.decisions from the start, read_committed, until the decision for {@code requestId} appears. */
    private static JsonNode awaitDecision(String bootstrap, String requestId) {
        JsonNode[] found = new JsonNode[1];
        boolean seen = consumeUntil(bootstrap, DECISIONS, record -> {
            JsonNode decision = parse(record.value());
            if (requestId.equals(decision.path("requestId").asText())) {
                assertEquals("demo-free", record.key(), "decisions are keyed by API key");
                found[0] = decision;
                return true;
            }
            return false;
        });
        if (!seen) {
            throw new AssertionError("no committed decision for " + requestId + " on " + DECISIONS + " within "
                    + DECISION_WAIT);
        }
        return found[0];
    }

    /** The enforcer has validated the sample key assignments into its key catalog. */
    private static void assertKeysInForce(String bootstrap, Map<String, String> keys) {
        Map<String, String> catalog = new HashMap<>();
        boolean all = consumeUntil(bootstrap, "quota.key-catalog", record -> {
            catalog.put(record.key(), record.value());
            return catalog.entrySet().containsAll(keys.entrySet());
        });
        assertTrue(all, "key catalog holds " + keys + " within " + DECISION_WAIT + "; has " + catalog);
    }

    /** Reads a topic from the start, read_committed, until {@code done} accepts a record; false on timeout. */
    private static boolean consumeUntil(String bootstrap, String topic, Predicate<ConsumerRecord<String, String>> done) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(settings, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, DECISION_WAIT).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + DECISION_WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (done.test(record)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** `plans list` against the running broker shows the sample plans once the enforcer has validated them. */
    private void assertPlansInForce(String bootstrap, List<String> plans) {
        long deadline = System.nanoTime() + DECISION_WAIT.toNanos();
        String output = "";
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            JarProcess.Result result = JarProcess.run(List.of(JarProcess.JAVA, "-jar", JarProcess.JAR.toString(), "plans",
                            "list", "--bootstrap-servers", bootstrap), work.resolve("plans-list-" + attempt + ".log"),
                    Map.of(), null, Duration.ofSeconds(60));
            assertEquals(0, result.status(), "plans list exit status; output:\n" + result.output());
            output = result.output();
            List<String> lines = Arrays.asList(output.split("\n"));
            if (plans.stream().allMatch(plan -> lines.stream().anyMatch(line -> line.startsWith(plan + "\t")))) {
                return;
            }
        }
        fail("plans list did not show " + plans + " within " + DECISION_WAIT + ":\n" + output);
    }

    /** Sends SIGTERM and checks the process stops within 30 s, cleanly, with status 0 or 143 (128 + SIGTERM). */
    private static void stopWithSigterm(JarProcess enforcer, String which) {
        long sent = System.nanoTime();
        enforcer.terminate();
        OptionalInt status = enforcer.awaitExit(STOP_WAIT);
        if (status.isEmpty()) {
            fail(which + ": still running " + STOP_WAIT + " after SIGTERM; output:\n" + enforcer.output());
        }
        log(which + ": exited with status " + status.getAsInt() + " " + millisSince(sent) + " ms after SIGTERM");
        assertTrue(status.getAsInt() == 0 || status.getAsInt() == 143,
                which + ": exit status after SIGTERM is 0 or 143, was " + status.getAsInt());
        String output = enforcer.output();
        assertTrue(output.contains("Stopping"), which + ": logs Stopping:\n" + output);
        assertTrue(output.contains("Embedded Kafka broker stopped"), which + ": logs the broker stopped:\n" + output);
        assertTrue(output.indexOf("Stopping") < output.indexOf("Embedded Kafka broker stopped"),
                which + ": stops the enforcer before the broker");
        assertFalse(ERROR_LINE.matcher(output).find(), which + ": no ERROR line:\n" + output);
        assertFalse(STACK_TRACE.matcher(output).find(), which + ": no stack trace:\n" + output);
    }

    static int freePortOtherThan(int... taken) {
        for (int attempt = 0; attempt < 10; attempt++) {
            int other = EmbeddedKafka.freePort();
            if (Arrays.stream(taken).noneMatch(port -> port == other)) {
                return other;
            }
        }
        throw new AssertionError("no other free port than " + Arrays.toString(taken));
    }

    private static String httpGet(int port, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), path + ": " + response.body());
        return response.body();
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("decision is not JSON: " + json, e);
        }
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    private static void log(String line) {
        System.out.println("RunCommandIT: " + line);
    }
}

package dev.quotaenforcer.it;

import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.config.EnforcerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One enforcer instance run as its own JVM from the shaded jar ({@code run} against the test's
 * cluster), so a test can kill it with SIGKILL or freeze it with SIGSTOP as an operating system would.
 * It runs the production defaults (exactly-once v2) but for what ties it to the test: application id,
 * topic prefix, state directory and HTTP port.
 */
final class EnforcerJvm implements AutoCloseable {

    /**
     * The jar run: the one this build made, or {@code -Dfault.jar=...}, to run the fault suite against
     * another version (such as the one before a fix, to see the suite find what it fixed).
     */
    private static final String JAR = System.getProperty("fault.jar", JarProcess.JAR.toString());
    private static final Duration READY_WAIT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final int httpPort;
    private final JarProcess process;
    private final Path log;

    private EnforcerJvm(String name, int httpPort, JarProcess process, Path log) {
        this.name = name;
        this.httpPort = httpPort;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts an instance of {@code applicationId} on the cluster (not waiting for it to be ready), its
     * output in {@code logDir}/{@code name}-N.log; {@code overrides} go over the test's settings.
     */
    static EnforcerJvm start(TestCluster cluster, String applicationId, String name, Path stateDir, Path logDir,
                             Map<String, Object> overrides) {
        int port = EmbeddedKafka.freePort();
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        settings.put(StreamsConfig.CLIENT_ID_CONFIG, applicationId + "-" + name);
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.put(EnforcerConfig.TOPIC_PREFIX_CONFIG, cluster.prefix());
        settings.put(EnforcerConfig.HTTP_PORT_CONFIG, port);
        settings.putAll(overrides);
        // C1 only: at a test's load the optimizing compiler buys nothing, while its start-up work competes with
        // the broker and the other instances for two cores (a first instance was ready in 7.4 and 6.3 s
        // without it, 9.3 and 8.4 s with).
        List<String> args = new ArrayList<>(List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-jar", JAR, "run", "--bootstrap-servers", cluster.bootstrapServers()));
        settings.forEach((key, value) -> args.addAll(List.of("--set", key + "=" + value)));
        Path log = logDir.resolve(name + "-" + System.nanoTime() + ".log");
        return new EnforcerJvm(name, port, JarProcess.java(log, Map.of(), args.toArray(String[]::new)), log);
    }

    String name() {
        return name;
    }

    /** The port of its HTTP API on localhost. */
    int httpPort() {
        return httpPort;
    }

    /** Waits until the instance reports ready (Kafka Streams RUNNING) on its HTTP API; fails with its output otherwise. */
    EnforcerJvm awaitReady() throws InterruptedException {
        try {
            TestCluster.awaitCondition("enforcer " + name + " ready or exited", () -> !alive() || ready(), READY_WAIT);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; output:\n" + tail(), e);
        }
        if (!alive()) {
            throw new AssertionError("enforcer " + name + " exited before it was ready; output:\n" + tail());
        }
        return this;
    }

    /** Whether its HTTP API answers ready now. */
    boolean ready() {
        return answers("/health/ready");
    }

    /**
     * Whether the instance that owns the key (asked through this one) has the key's plan in force: its
     * usage is then answered, where a key or plan missing from the catalogs is 404.
     */
    boolean knowsPlanOf(String apiKey) {
        return answers("/usage/" + apiKey);
    }

    private boolean answers(String path) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + httpPort
                    + path)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGKILL: no shutdown hook runs, the open transaction stays open until the broker aborts or fences it. */
    void kill() {
        process.close();
    }

    /** SIGSTOP: the process keeps its sockets but runs nothing, heartbeats included. */
    void freeze() {
        signal("STOP");
    }

    /** SIGCONT after {@link #freeze}. */
    void thaw() {
        signal("CONT");
    }

    /** SIGTERM and a wait for the clean shutdown (close commits the open transaction and leaves the group). */
    void stop() {
        process.terminate();
        if (process.awaitExit(Duration.ofSeconds(60)).isEmpty()) {
            throw new AssertionError("enforcer " + name + " did not stop within 60 s of SIGTERM; output:\n" + tail());
        }
    }

    /** Whether the process still runs. */
    boolean alive() {
        return process.awaitExit(Duration.ZERO).isEmpty();
    }

    /** The file its output goes to. */
    Path log() {
        return log;
    }

    /** Everything it printed. */
    String output() {
        return process.output();
    }

    /** The last lines it printed, for failure messages. */
    String tail() {
        String[] lines = output().split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 40), lines.length));
    }

    private void signal(String signal) {
        Path output;
        try {
            output = Files.createTempFile("kill-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JarProcess.Result result = JarProcess.run(List.of("kill", "-" + signal, Long.toString(process.pid())), output,
                Map.of(), null, Duration.ofSeconds(10));
        if (result.status() != 0) {
            throw new AssertionError("kill -" + signal + " " + process.pid() + " failed: " + result.output());
        }
    }

    @Override
    public void close() {
        process.close();
    }
}

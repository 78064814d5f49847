package dev.quotaenforcer.broker;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one) running in this JVM, with
 * its data under a directory so a restart keeps topics, offsets and state changelogs.
 *
 * <p>It uses Kafka's server classes ({@code kafka.server.KafkaRaftServer}, {@code
 * kafka.tools.StorageTool}), which are internal: they are pinned with the Kafka version and used
 * nowhere else. The tests start their broker through this same class.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** The broker setting that says how soon it retries adding a partition to a transaction still completing. */
    public static final String ADD_PARTITIONS_RETRY_BACKOFF_MS_CONFIG = "add.partitions.to.txn.retry.backoff.ms";
    /** The embedded broker's value of it: the least Kafka allows (its default is 20 ms). */
    public static final int ADD_PARTITIONS_RETRY_BACKOFF_MS = 1;

    private final KafkaRaftServer server;
    private final String bootstrapServers;

    private EmbeddedKafka(KafkaRaftServer server, String bootstrapServers) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts a broker listening on {@code localhost:port} (controller on {@code controllerPort}),
     * formatting {@code dataDir} first if it holds no broker yet, and waits until it serves requests.
     *
     * @throws IllegalStateException when a port is taken or the broker does not become ready
     */
    public static EmbeddedKafka start(Path dataDir, int port, int controllerPort) {
        requireFree(port);
        requireFree(controllerPort);
        return start(dataDir, serverProperties(dataDir, port, controllerPort), List.of(),
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port));
    }

    /**
     * Starts a broker with the caller's server properties (listeners, security, authorizer: all of it,
     * {@code log.dirs} and {@code metadata.log.dir} under {@code dataDir}), formatting {@code dataDir}
     * first with {@code formatArguments} added (e.g. {@code --add-scram}) if it holds no broker yet, and
     * waits until an admin client with {@code adminSettings} (bootstrap servers and credentials) is served.
     *
     * @throws IllegalStateException when the broker does not become ready
     */
    public static EmbeddedKafka start(Path dataDir, Properties props, List<String> formatArguments,
                                      Map<String, Object> adminSettings) {
        try {
            Files.createDirectories(dataDir);
            if (!Files.exists(dataDir.resolve("meta.properties"))) {
                format(dataDir, props, formatArguments);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare broker data directory " + dataDir, e);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props), Time.SYSTEM);
        server.startup();
        EmbeddedKafka kafka = new EmbeddedKafka(server, String.valueOf(adminSettings.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)));
        try {
            kafka.awaitReady(adminSettings);
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    /** A free port on localhost, for tests that start several brokers or run beside other services. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    /**
     * The properties of the plaintext single-node broker {@link #start(Path, int, int)} runs: a base for
     * a variant that changes its listeners or security.
     */
    public static Properties serverProperties(Path dataDir, int port, int controllerPort) {
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.bootstrap.servers", "localhost:" + controllerPort);
        props.put("listeners", "PLAINTEXT://localhost:" + port + ",CONTROLLER://localhost:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://localhost:" + port);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", dataDir.resolve("logs").toString());
        props.put("metadata.log.dir", dataDir.toString());
        // One node: every internal topic has a single replica.
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "6");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "6");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("num.partitions", "1");
        props.put("auto.create.topics.enable", "false");
        // Under transactions v2 the broker adds a partition to a producer's new transaction when the first
        // records for it arrive; while the last commit's markers are still being written it retries that
        // after this back-off, and holds the records meanwhile: at Kafka's 20 ms a record sent at once after a
        // commit waited 22 ms at the median (bench commit-wait); a retry is a call to the local coordinator.
        props.put(ADD_PARTITIONS_RETRY_BACKOFF_MS_CONFIG, Integer.toString(ADD_PARTITIONS_RETRY_BACKOFF_MS));
        return props;
    }

    private static void format(Path dataDir, Properties props, List<String> formatArguments) throws IOException {
        Path config = dataDir.resolve("server.properties");
        try (Writer writer = Files.newBufferedWriter(config)) {
            props.store(writer, "written by quota-enforcer to format the embedded broker's storage");
        }
        String clusterId = Uuid.randomUuid().toString();
        List<String> arguments = new ArrayList<>(List.of("format", "-t", clusterId, "-c", config.toString(), "--standalone"));
        arguments.addAll(formatArguments);
        int status = kafka.tools.StorageTool.execute(arguments.toArray(String[]::new),
                new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        if (status != 0) {
            throw new IllegalStateException("formatting the broker's storage in " + dataDir + " failed with status " + status);
        }
    }

    private void awaitReady(Map<String, Object> adminSettings) {
        try (Admin admin = Admin.create(adminSettings)) {
            admin.describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the embedded broker at " + bootstrapServers + " did not become ready", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the embedded broker", e);
        }
    }

    private static void requireFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("localhost", port));
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " on localhost is in use; pass another with --port", e);
        }
    }
}

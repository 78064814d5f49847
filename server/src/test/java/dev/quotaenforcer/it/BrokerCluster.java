package dev.quotaenforcer.it;

import dev.quotaenforcer.broker.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * A KRaft cluster of broker processes (each broker and controller in one) run from the shaded jar,
 * so a test can SIGKILL a node as an operating system would and restart it on its ports with its data.
 */
final class BrokerCluster implements AutoCloseable {

    private static final Duration READY_WAIT = Duration.ofSeconds(90);
    private static final Duration ADMIN_WAIT = Duration.ofSeconds(20);

    /** One node: its fixed ports and directories, and the process running it, if any. */
    private static final class Broker {
        final int id;
        final int port;
        final int controllerPort;
        final Path dir;
        final Path config;
        int starts;
        JarProcess process;

        Broker(int id, Path work) {
            this.id = id;
            this.port = EmbeddedKafka.freePort();
            this.controllerPort = EmbeddedKafka.freePort();
            this.dir = work.resolve("broker-" + id);
            this.config = dir.resolve("server.properties");
        }
    }

    private final List<Broker> brokers = new ArrayList<>();
    private final String bootstrapServers;

    private BrokerCluster(int size, Path work) {
        for (int id = 1; id <= size; id++) {
            brokers.add(new Broker(id, work));
        }
        bootstrapServers = brokers.stream().map(b -> "localhost:" + b.port).collect(Collectors.joining(","));
    }

    /**
     * Formats and starts {@code size} nodes under {@code work}, all of them voters of the controller
     * quorum, internal topics replicated {@code min(size, 3)} times with {@code min(size, 2)} in sync,
     * and waits until every broker serves.
     */
    static BrokerCluster start(int size, Path work) throws InterruptedException {
        BrokerCluster cluster = new BrokerCluster(size, work);
        try {
            cluster.format();
            for (Broker broker : cluster.brokers) {
                cluster.launch(broker);
            }
            for (Broker broker : cluster.brokers) {
                cluster.awaitServing(broker);
            }
        } catch (RuntimeException | InterruptedException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    /** SIGKILL of node {@code id}: no controlled shutdown, leaderships move only once the controller fences it. */
    void kill(int id) {
        Broker broker = broker(id);
        broker.process.close();
        broker.process = null;
    }

    /**
     * Starts node {@code id} again on its ports with its data, once the cluster has fenced the killed
     * incarnation (until then it still lists the node as serving), and waits until the new one serves.
     */
    void restart(int id) throws InterruptedException {
        Broker broker = broker(id);
        if (broker.process != null) {
            throw new IllegalStateException("broker " + id + " is running");
        }
        TestCluster.awaitCondition("broker " + id + " fenced after its kill", () -> {
            try {
                return !servingBrokers().contains(id);
            } catch (AssertionError e) {
                // No broker answers: none serves, this one included.
                return true;
            }
        }, READY_WAIT);
        launch(broker);
        awaitServing(broker);
    }

    /** The node leading {@code partition} now, or -1 if it has no leader. */
    int leaderOf(TopicPartition partition) {
        return admin(admin -> {
            TopicPartitionInfo info = admin.describeTopics(List.of(partition.topic())).allTopicNames()
                    .get(ADMIN_WAIT.toSeconds(), TimeUnit.SECONDS).get(partition.topic()).partitions().get(partition.partition());
            return info.leader() == null ? -1 : info.leader().id();
        });
    }

    /** The transactional ids starting with {@code prefix} that the cluster knows, in any state. */
    List<String> transactionalIds(String prefix) {
        return admin(admin -> admin.listTransactions().all().get(ADMIN_WAIT.toSeconds(), TimeUnit.SECONDS).stream()
                .map(TransactionListing::transactionalId).filter(id -> id.startsWith(prefix)).sorted().toList());
    }

    /** The node coordinating {@code transactionalId}'s transactions now. */
    int transactionCoordinatorOf(String transactionalId) {
        return admin(admin -> admin.describeTransactions(List.of(transactionalId)).description(transactionalId)
                .get(ADMIN_WAIT.toSeconds(), TimeUnit.SECONDS).coordinatorId());
    }

    /** The leader of the controller quorum: the active controller. */
    int activeController() {
        return admin(admin -> admin.describeMetadataQuorum().quorumInfo().get(ADMIN_WAIT.toSeconds(), TimeUnit.SECONDS)
                .leaderId());
    }

    /** The nodes serving as brokers now (registered and not fenced). */
    Set<Integer> servingBrokers() {
        return admin(admin -> admin.describeCluster().nodes().get(ADMIN_WAIT.toSeconds(), TimeUnit.SECONDS).stream()
                .map(Node::id).collect(Collectors.toSet()));
    }

    /** Waits until every partition of every topic, internal ones included, has a leader and all its replicas in sync. */
    void awaitFullyReplicated(Duration wait) throws InterruptedException {
        TestCluster.awaitCondition("every partition with all its replicas in sync", () -> {
            try {
                return admin(admin -> {
                    Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                            .get(ADMIN_WAIT.toSeconds(), TimeUnit.SECONDS);
                    for (TopicDescription topic : admin.describeTopics(topics).allTopicNames()
                            .get(ADMIN_WAIT.toSeconds(), TimeUnit.SECONDS).values()) {
                        for (TopicPartitionInfo partition : topic.partitions()) {
                            if (partition.leader() == null || partition.isr().size() < partition.replicas().size()) {
                                return false;
                            }
                        }
                    }
                    return true;
                });
            } catch (AssertionError e) {
                return false;
            }
        }, wait);
    }

    /** What node {@code id} printed in its current or last run. */
    String output(int id) {
        Broker broker = broker(id);
        Path log = broker.dir.resolve("broker-" + id + "-" + broker.starts + ".log");
        try {
            return Files.readString(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills every node still running. */
    @Override
    public void close() {
        for (Broker broker : brokers) {
            if (broker.process != null) {
                broker.process.close();
                broker.process = null;
            }
        }
    }

    private interface AdminCall<T> {
        T apply(Admin admin) throws ExecutionException, TimeoutException, InterruptedException;
    }

    private <T> T admin(AdminCall<T> call) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_WAIT.toMillis()))) {
            return call.apply(admin);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("admin request to " + bootstrapServers + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private Broker broker(int id) {
        return brokers.stream().filter(b -> b.id == id).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no broker " + id));
    }

    /** Writes each node's properties and formats its storage with the same cluster id and initial voters. */
    private void format() {
        String clusterId = Uuid.randomUuid().toString();
        // A dynamic quorum (KIP-853) whose first voters are all nodes: each voter is named with its log directory's id.
        String voters = brokers.stream().map(b -> b.id + "@localhost:" + b.controllerPort + ":" + Uuid.randomUuid())
                .collect(Collectors.joining(","));
        for (Broker broker : brokers) {
            try {
                Files.createDirectories(broker.dir);
                try (Writer writer = Files.newBufferedWriter(broker.config)) {
                    properties(broker).store(writer, "broker " + broker.id + " of a test cluster");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            JarProcess.Result result = JarProcess.run(List.of(JarProcess.JAVA, "-cp", JarProcess.JAR.toString(),
                            "kafka.tools.StorageTool", "format", "-t", clusterId, "-c", broker.config.toString(),
                            "--initial-controllers", voters), broker.dir.resolve("format.log"), Map.of(), null,
                    Duration.ofSeconds(60));
            if (result.status() != 0) {
                throw new AssertionError("formatting broker " + broker.id + " failed: " + result.output());
            }
        }
    }

    private Properties properties(Broker broker) {
        int size = brokers.size();
        String replicas = Integer.toString(Math.min(size, 3));
        String inSync = Integer.toString(Math.min(size, 2));
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", Integer.toString(broker.id));
        props.put("controller.quorum.bootstrap.servers", brokers.stream().map(b -> "localhost:" + b.controllerPort)
                .collect(Collectors.joining(",")));
        props.put("listeners", "PLAINTEXT://localhost:" + broker.port + ",CONTROLLER://localhost:" + broker.controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://localhost:" + broker.port + ",CONTROLLER://localhost:"
                + broker.controllerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", broker.dir.resolve("logs").toString());
        props.put("metadata.log.dir", broker.dir.resolve("metadata").toString());
        props.put("default.replication.factor", replicas);
        props.put("min.insync.replicas", inSync);
        props.put("offsets.topic.replication.factor", replicas);
        props.put("offsets.topic.num.partitions", "6");
        props.put("transaction.state.log.replication.factor", replicas);
        props.put("transaction.state.log.min.isr", inSync);
        props.put("transaction.state.log.num.partitions", "6");
        props.put("share.coordinator.state.topic.replication.factor", replicas);
        props.put("share.coordinator.state.topic.min.isr", inSync);
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("num.partitions", "1");
        props.put("auto.create.topics.enable", "false");
        // Several brokers and enforcers share the test machine's few cores: fewer threads than a server's defaults.
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "2");
        props.put("background.threads", "2");
        props.put("num.recovery.threads.per.data.dir", "1");
        return props;
    }

    private void launch(Broker broker) {
        broker.starts++;
        broker.process = JarProcess.java(broker.dir.resolve("broker-" + broker.id + "-" + broker.starts + ".log"), Map.of(),
                "-Xmx512m", "-XX:+UseSerialGC", "-cp", JarProcess.JAR.toString(), "kafka.Kafka", broker.config.toString());
    }

    private void awaitServing(Broker broker) throws InterruptedException {
        try {
            TestCluster.awaitCondition("broker " + broker.id + " serving or exited", () -> {
                if (broker.process.awaitExit(Duration.ZERO).isPresent()) {
                    return true;
                }
                try {
                    return servingBrokers().contains(broker.id);
                } catch (AssertionError e) {
                    return false;
                }
            }, READY_WAIT);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; output:\n" + output(broker.id), e);
        }
        if (broker.process.awaitExit(Duration.ZERO).isPresent()) {
            throw new AssertionError("broker " + broker.id + " exited; output:\n" + output(broker.id));
        }
    }
}

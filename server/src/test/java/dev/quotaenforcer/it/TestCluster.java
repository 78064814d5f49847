package dev.quotaenforcer.it;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.TopicApplier;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.cli.QuotaEnforcerCommand;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.runtime.Enforcer;
import dev.quotaenforcer.topology.Topic;
import dev.quotaenforcer.topology.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.junit.jupiter.api.extension.ExtensionContext;
import picocli.CommandLine;

/**
 * One test's view of the shared broker: its own topic prefix and application ids, so tests never
 * see each other's records or state, with helpers to publish plans and requests and to read the
 * committed output with plain Kafka clients.
 */
public final class TestCluster {

    private static final Duration DEFAULT_WAIT = Duration.ofSeconds(60);

    private final String bootstrapServers;
    private final Map<String, Object> clientSettings;
    private final String prefix;
    private final Topics topics;
    private final short replicationFactor;

    TestCluster(String bootstrapServers, ExtensionContext context) {
        this(bootstrapServers, context.getTestMethod().map(m -> m.getName()).orElse("test"));
    }

    /** A view of a broker the test started itself, its topics named after {@code test}. */
    TestCluster(String bootstrapServers, String test) {
        this(Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), test, (short) 1);
    }

    /** A view of a cluster the test started itself whose topics {@link #createTopics} replicates {@code replicationFactor} times. */
    TestCluster(String bootstrapServers, String test, short replicationFactor) {
        this(Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), test, replicationFactor);
    }

    /**
     * A view of a secured broker: {@code clientSettings} (bootstrap servers and the credentials of the
     * principal the test sets up as) reach every client here, the command line and, unless overridden, enforcers.
     */
    TestCluster(Map<String, Object> clientSettings, String test) {
        this(clientSettings, test, (short) 1);
    }

    private TestCluster(Map<String, Object> clientSettings, String test, short replicationFactor) {
        this.bootstrapServers = String.valueOf(clientSettings.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG));
        this.clientSettings = Map.copyOf(clientSettings);
        this.prefix = "it-" + test.replaceAll("[^A-Za-z0-9]", "") + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.topics = Topics.withPrefix(prefix);
        this.replicationFactor = replicationFactor;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Topics topics() {
        return topics;
    }

    /** The application.id of this test's enforcers. */
    public String applicationId() {
        return prefix + "-app";
    }

    /** This test's topic prefix (quota.topic.prefix). */
    public String prefix() {
        return prefix;
    }

    /**
     * Creates this test's topics from the bundled definitions, with {@code requestPartitions} for requests
     * and for the commands topic, which is partitioned like it, and this view's replication factor (1 unless
     * given).
     */
    public void createTopics(int requestPartitions) throws InterruptedException {
        TopicDefinitions definitions = TopicDefinitions.bundled().withPrefix(prefix)
                .withPartitions(topics.requests().name(), requestPartitions)
                .withPartitions(topics.commands().name(), requestPartitions)
                .withReplicationFactor(replicationFactor);
        try (Admin admin = Admin.create(clientSettings)) {
            TopicApplier.apply(admin, definitions);
        }
    }

    /** Sets one config of a topic, and returns once the broker describes the topic with it. */
    public void alterTopicConfig(String topic, String name, String value) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = Admin.create(clientSettings)) {
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry(name, value),
                    AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
            // The controller has it; the broker's view, which an enforcer starting now describes, follows shortly.
            awaitCondition(topic + " described with " + name + "=" + value, () -> {
                try {
                    return value.equals(admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                            .get(resource).get(name).value());
                } catch (ExecutionException | TimeoutException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }, DEFAULT_WAIT);
        }
    }

    /** What a command-line run printed, and its exit status. */
    public record CliResult(int status, String out, String err) {
    }

    /** Runs the command line (e.g. {@code keys block k-1}) against this test's cluster and topics. */
    public CliResult cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new QuotaEnforcerCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        List<String> full = new ArrayList<>(List.of(args));
        full.addAll(List.of("--bootstrap-servers", bootstrapServers, "--set", EnforcerConfig.TOPIC_PREFIX_CONFIG + "=" + prefix));
        clientSettings.forEach((key, value) -> {
            if (!key.equals(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)) {
                full.addAll(List.of("--set", key + "=" + value));
            }
        });
        int status = command.execute(full.toArray(String[]::new));
        return new CliResult(status, out.toString(), err.toString());
    }

    /** A lateness bound of ten years, for enforcers that decide the suites' fixed hours of 2026. */
    public static final long REPLAY_LATENESS_MS = 10L * 366 * 24 * 3_600_000;

    /** Settings for an enforcer instance of this test: its application id, topics and state directory. */
    public Map<String, Object> enforcerSettings(String instance, Path stateDir) {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId());
        settings.put(StreamsConfig.CLIENT_ID_CONFIG, prefix + "-" + instance);
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        settings.put(EnforcerConfig.TOPIC_PREFIX_CONFIG, prefix);
        // Several instances run at once in one JVM: each takes a free port for its HTTP API.
        settings.put(EnforcerConfig.HTTP_PORT_CONFIG, 0);
        // The suites replay fixed hours of January 2026 as event times, long before the broker stamps their
        // records: a bound reaching over them keeps their figures (the default bound has tests of its own).
        settings.put(EnforcerConfig.REQUEST_MAX_LATENESS_MS_CONFIG, REPLAY_LATENESS_MS);
        return settings;
    }

    /** The hourly quota of 100 most suites decide against. */
    public static final String BASIC_PLAN = """
            {"id": "basic", "quota": {"name": "hourly", "limit": 100, "window": "PT1H"}}""";

    /**
     * Creates this test's topics, publishes {@link #BASIC_PLAN}, assigns {@code apiKeys} to it and starts
     * an enforcer that has them in force.
     */
    public Enforcer startWithBasicPlan(int requestPartitions, Path stateDir, String... apiKeys) throws InterruptedException {
        createTopics(requestPartitions);
        putPlan(BASIC_PLAN);
        for (String apiKey : apiKeys) {
            assign(apiKey, "basic");
        }
        Enforcer enforcer = startEnforcer("a", stateDir);
        for (String apiKey : apiKeys) {
            awaitAssignment(enforcer, apiKey, "basic");
        }
        return enforcer;
    }

    /** Starts an enforcer instance and waits until it is running. */
    public Enforcer startEnforcer(String instance, Path stateDir) throws InterruptedException {
        return startEnforcer(instance, stateDir, Map.of());
    }

    /** An enforcer with these settings on top of the test's own. */
    public Enforcer startEnforcer(String instance, Path stateDir, Map<String, Object> overrides) throws InterruptedException {
        Map<String, Object> settings = enforcerSettings(instance, stateDir);
        settings.putAll(overrides);
        Enforcer enforcer = Enforcer.start(settings);
        if (!enforcer.awaitReady(DEFAULT_WAIT)) {
            enforcer.close();
            throw new AssertionError("enforcer " + instance + " did not become ready within " + DEFAULT_WAIT);
        }
        return enforcer;
    }

    public void putPlan(String json) throws InterruptedException {
        try {
            catalog().putPlan(json.getBytes(StandardCharsets.UTF_8));
        } catch (InvalidPlanException e) {
            throw new AssertionError("test plan is invalid: " + e.getMessage(), e);
        }
    }

    public void assign(String apiKey, String plan) throws InterruptedException {
        catalog().assignKey(apiKey, plan);
    }

    private CatalogClient catalog() {
        return new CatalogClient(clientSettings, topics);
    }

    /** A request event keyed by its API key, produced the way a Java gateway would. */
    public static ProducerRecord<byte[], byte[]> request(Topics topics, String apiKey, String requestId, long cost,
                                                         String timestamp) {
        String json = "{\"requestId\": \"" + requestId + "\", \"apiKey\": \"" + apiKey + "\", \"cost\": " + cost
                + (timestamp == null ? "" : ", \"timestamp\": \"" + timestamp + "\"") + "}";
        return new ProducerRecord<>(topics.requests().name(), bytes(apiKey), bytes(json));
    }

    /** Sends records to their topics and waits until every one is acknowledged. */
    public void send(List<ProducerRecord<byte[], byte[]>> records) {
        sendAndLocate(records);
    }

    /** Like {@link #send}, returning where each record landed (partition, offset, timestamp), in the same order. */
    public List<RecordMetadata> sendAndLocate(List<ProducerRecord<byte[], byte[]>> records) {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 * 1024 * 1024);
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            records.forEach(record -> acks.add(producer.send(record)));
            List<RecordMetadata> located = new ArrayList<>();
            for (Future<RecordMetadata> ack : acks) {
                located.add(ack.get());
            }
            return located;
        } catch (ExecutionException e) {
            throw new AssertionError("send failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Polls {@code condition} every 100 ms until it holds, failing with {@code what} if it does not
     * within {@code wait}: for state that no topic shows, such as an instance's task assignment.
     */
    public static void awaitCondition(String what, BooleanSupplier condition, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + wait + ": " + what);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /**
     * Waits until {@code enforcer}'s global catalogs assign {@code apiKey} to {@code plan} and hold that
     * plan. The enforcer fills its catalogs from the api-keys and plans topics after it starts, not in
     * lockstep with the requests, so a request sent before this may be decided UNKNOWN_API_KEY.
     */
    /** Waits until both instances run and split the requests partitions between them, each owning some. */
    public void awaitRequestPartitionsSplit(Enforcer a, Enforcer b, int partitions) throws InterruptedException {
        awaitCondition("both instances running with the requests partitions split between them", () -> {
            Set<TopicPartition> ofA = activeRequestPartitions(a);
            Set<TopicPartition> ofB = activeRequestPartitions(b);
            Set<TopicPartition> all = new HashSet<>(ofA);
            all.addAll(ofB);
            return a.streams().state() == KafkaStreams.State.RUNNING && b.streams().state() == KafkaStreams.State.RUNNING
                    && !ofA.isEmpty() && !ofB.isEmpty() && all.size() == partitions && ofA.size() + ofB.size() == partitions;
        }, Duration.ofSeconds(60));
    }

    private Set<TopicPartition> activeRequestPartitions(Enforcer enforcer) {
        Set<TopicPartition> partitions = new HashSet<>();
        for (ThreadMetadata thread : enforcer.streams().metadataForLocalThreads()) {
            for (TaskMetadata task : thread.activeTasks()) {
                task.topicPartitions().stream().filter(p -> p.topic().equals(topics.requests().name())).forEach(partitions::add);
            }
        }
        return partitions;
    }

    public static void awaitAssignment(Enforcer enforcer, String apiKey, String plan) throws InterruptedException {
        awaitCondition(apiKey + " assigned to " + plan + " in the enforcer's catalogs", () -> enforcer.inForce(apiKey, plan),
                DEFAULT_WAIT);
    }

    /** Reads committed decisions from the start until {@code done} holds for what was read, or fails on timeout. */
    public List<Decision> awaitDecisions(Predicate<List<Decision>> done) {
        return awaitValues(topics.decisions(), done);
    }

    public List<Decision> awaitDecisions(int count) {
        return awaitDecisions(read -> read.size() >= count);
    }

    public List<QuotaExceeded> awaitExceeded(int count) {
        return awaitValues(topics.exceeded(), read -> read.size() >= count);
    }

    /** Everything committed on the topic now, read to its end. */
    /** Every record committed to the topic by now: read from the beginning up to its last stable offsets. */
    public <K, V> List<ConsumerRecord<K, V>> readAll(Topic<K, V> topic) {
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = committedConsumer(topic)) {
            List<TopicPartition> partitions = assignFromBeginning(consumer, topic, DEFAULT_WAIT);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, DEFAULT_WAIT);
            long deadline = System.nanoTime() + DEFAULT_WAIT.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p, DEFAULT_WAIT) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic.name() + " up to " + ends + " within " + DEFAULT_WAIT);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    public <K, V> List<ConsumerRecord<K, V>> awaitRecords(Topic<K, V> topic, int count) {
        List<ConsumerRecord<K, V>> records = read(topic, read -> read.size() >= count, DEFAULT_WAIT);
        if (records.size() < count) {
            throw new AssertionError("expected " + count + " records on " + topic.name() + " within " + DEFAULT_WAIT
                    + ", got " + records.size());
        }
        return records;
    }

    private <V> List<V> awaitValues(Topic<String, V> topic, Predicate<List<V>> done) {
        List<V> values = new ArrayList<>();
        read(topic, records -> {
            values.clear();
            records.forEach(r -> values.add(r.value()));
            return done.test(values);
        }, DEFAULT_WAIT);
        if (!done.test(values)) {
            throw new AssertionError("condition not met on " + topic.name() + " within " + DEFAULT_WAIT + "; read "
                    + values.size() + ": " + values);
        }
        return values;
    }

    /** Reads committed records from the beginning until {@code done} holds or {@code wait} passes. */
    private <K, V> List<ConsumerRecord<K, V>> read(Topic<K, V> topic, Predicate<List<ConsumerRecord<K, V>>> done,
                                                   Duration wait) {
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = committedConsumer(topic)) {
            assignFromBeginning(consumer, topic, wait);
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                if (done.test(records)) {
                    break;
                }
            }
        }
        return records;
    }

    private <K, V> KafkaConsumer<K, V> committedConsumer(Topic<K, V> topic) {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
        return new KafkaConsumer<>(settings, topic.keySerde().deserializer(), topic.valueSerde().deserializer());
    }

    private static List<TopicPartition> assignFromBeginning(KafkaConsumer<?, ?> consumer, Topic<?, ?> topic, Duration wait) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic.name(), wait).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return partitions;
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

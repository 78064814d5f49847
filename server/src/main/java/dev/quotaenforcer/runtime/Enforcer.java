package dev.quotaenforcer.runtime;

import dev.quotaenforcer.admin.ClientSettings;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.http.AccessTokens;
import dev.quotaenforcer.http.OperatorServer;
import dev.quotaenforcer.topology.DeadLetterExceptionHandler;
import dev.quotaenforcer.topology.DecisionStats;
import dev.quotaenforcer.topology.QuotaTopology;
import dev.quotaenforcer.topology.Topics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running enforcer: the topology in a KafkaStreams instance, sized to the requests topic, with
 * a log line when Kafka Streams runs and one a minute with throughput and decision counts.
 */
public final class Enforcer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Enforcer.class);
    private static final Duration REPORT_INTERVAL = Duration.ofMinutes(1);

    private final KafkaStreams streams;
    private final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final DecisionStats stats = new DecisionStats(metrics, Clock.systemUTC());
    private final OperatorServer operatorServer;
    private final KafkaStreamsMetrics streamsMetrics;
    private final CountDownLatch running = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ScheduledExecutorService reporter;
    private final String describe;
    private final ReplyTopics replyTopics;
    private Map<Reason, Long> lastReport = new EnumMap<>(Reason.class);

    private Enforcer(EnforcerConfig config, String describe, Map<String, Object> settings) {
        this.describe = describe;
        this.replyTopics = new ReplyTopics(settings, config.topicPrefix());
        new JvmMemoryMetrics().bindTo(metrics);
        new JvmGcMetrics().bindTo(metrics);
        new JvmThreadMetrics().bindTo(metrics);
        new ProcessorMetrics().bindTo(metrics);
        new UptimeMetrics().bindTo(metrics);
        // The HTTP API starts first: its port, when picked freely, is part of Kafka Streams' application.server.
        this.operatorServer = config.httpPort() < 0 ? null : OperatorServer.start(config.httpBindAddress(),
                config.httpPort(), metrics, Clock.systemUTC(), config.defaultPlan(), config.httpAuthTokensFile() == null
                        ? null : AccessTokens.load(EnforcerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, config.httpAuthTokensFile()),
                config.httpMaskApiKeys());
        QuotaTopology topology = new QuotaTopology(config, stats, replyTopics);
        Properties properties = topology.streamsProperties();
        if (!properties.containsKey(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG)) {
            properties.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbMemory.class);
            // Kafka Streams hands the config setter every setting it was given; this one is read back there.
            properties.put(EnforcerConfig.ROCKSDB_MEMORY_BYTES_CONFIG, config.rocksDbMemoryBytes());
        }
        if (operatorServer != null && !properties.containsKey(StreamsConfig.APPLICATION_SERVER_CONFIG)) {
            properties.put(StreamsConfig.APPLICATION_SERVER_CONFIG, config.httpAdvertisedHost() + ":" + operatorServer.port());
        }
        this.streams = new KafkaStreams(topology.build(), properties);
        streams.setGlobalStateRestoreListener(new RestoreLog(System::nanoTime));
        streams.setUncaughtExceptionHandler(new LostTransactionHandler(3, Duration.ofMinutes(10), System::nanoTime));
        this.streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(metrics);
        if (operatorServer != null) {
            operatorServer.attach(streams, HostInfo.buildFromEndpoint((String) properties.get(StreamsConfig.APPLICATION_SERVER_CONFIG)),
                    ClientSettings.forConsumer(settings), Topics.withPrefix(config.topicPrefix()));
            LOG.info("Operator API and dashboard on http://{}:{}/ (application.server {})", config.httpBindAddress(),
                    operatorServer.port(), properties.get(StreamsConfig.APPLICATION_SERVER_CONFIG));
        }
        this.reporter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "quota-enforcer-report");
            thread.setDaemon(true);
            return thread;
        });
        streams.setStateListener((now, before) -> {
            LOG.debug("Kafka Streams {} -> {}", before, now);
            if (now == KafkaStreams.State.RUNNING && running.getCount() > 0) {
                running.countDown();
                LOG.info("Kafka Streams running: {}", describe);
            }
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
    }

    /**
     * Starts the enforcer against the cluster in {@code settings}, after reading the requests
     * topic's partition count from it (the re-keying topics must match it).
     *
     * @throws IllegalStateException when the enforcer's principal lacks one of its ACLs, the requests or
     *                               commands topic does not exist or cannot be described, or their partition counts differ
     */
    public static Enforcer start(Map<String, Object> settings) {
        EnforcerConfig sized = new EnforcerConfig(withRequestPartitions(settings));
        Topics topics = Topics.withPrefix(sized.topicPrefix());
        String describe = topics.requests().name() + " (" + sized.requestPartitions() + " partitions) on "
                + settings.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) + " as application "
                + sized.streamsProperties().get(StreamsConfig.APPLICATION_ID_CONFIG) + "; decisions on "
                + topics.decisions().name();
        Enforcer enforcer = new Enforcer(sized, describe, settings);
        enforcer.streams.start();
        enforcer.reporter.scheduleAtFixedRate(enforcer::report, REPORT_INTERVAL.toMillis(), REPORT_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
        return enforcer;
    }

    private static Map<String, Object> withRequestPartitions(Map<String, Object> settings) {
        Topics topics = Topics.withPrefix(new EnforcerConfig(settings).topicPrefix());
        String requests = topics.requests().name();
        String commands = topics.commands().name();
        try (Admin admin = Admin.create(ClientSettings.forAdmin(settings))) {
            // First: without its ACLs every check after this one would fail with a generic authorization error.
            AclCheck.require(admin, settings);
            TransactionsVersion.warnUnlessV2(admin, String.valueOf(settings.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)));
            Map<String, TopicDescription> described = admin.describeTopics(List.of(requests, commands)).allTopicNames()
                    .get(60, TimeUnit.SECONDS);
            int partitions = described.get(requests).partitions().size();
            int commandPartitions = described.get(commands).partitions().size();
            // Commands are applied by the task of their key's requests partition: both topics must split keys alike.
            if (commandPartitions != partitions) {
                throw new IllegalStateException("topic " + commands + " has " + commandPartitions + " partitions but "
                        + requests + " has " + partitions + "; they must have as many (add partitions to the smaller)");
            }
            requireBrokerTimestamps(admin, List.of(requests, commands));
            requireRecordsFit(admin, new EnforcerConfig(settings), settings);
            Map<String, Object> sized = new HashMap<>(settings);
            sized.put(EnforcerConfig.REQUEST_PARTITIONS_CONFIG, partitions);
            return sized;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot describe topics " + requests + " and " + commands
                    + " (create them with `topics apply`): " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out describing topics " + requests + " and " + commands + " at "
                    + settings.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing topics " + requests + " and " + commands, e);
        }
    }

    /**
     * The enforcer's clock is its input's record timestamps: on these topics the broker must set them
     * (LogAppendTime), or one producer's clock, skewed or hostile, would expire every other key's state
     * and close usage hours early. A replay sees the same stamps, so it decides alike.
     */
    private static void requireBrokerTimestamps(Admin admin, List<String> topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        List<ConfigResource> resources = topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(60, TimeUnit.SECONDS);
        for (ConfigResource resource : resources) {
            ConfigEntry type = configs.get(resource).get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
            String value = type == null ? null : type.value();
            if (!"LogAppendTime".equals(value)) {
                throw new IllegalStateException("topic " + resource.name() + " has " + TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG
                        + "=" + value + ": the enforcer requires LogAppendTime, so that the broker, not a producer, stamps "
                        + "the records it keeps time by; set it with kafka-configs.sh --alter --entity-type topics "
                        + "--entity-name " + resource.name() + " --add-config " + TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG
                        + "=LogAppendTime");
            }
        }
    }

    /**
     * Under exactly-once a record the broker refuses aborts its transaction, and the task refuses it
     * again on every retry: each output topic must accept the largest record the enforcer writes
     * there, and the dead-letter topic and the producer the largest dead letter.
     */
    private static void requireRecordsFit(Admin admin, EnforcerConfig config, Map<String, Object> settings)
            throws ExecutionException, InterruptedException, TimeoutException {
        Topics topics = Topics.withPrefix(config.topicPrefix());
        List<ConfigResource> resources = new ArrayList<>();
        topics.outputs().forEach(name -> resources.add(new ConfigResource(ConfigResource.Type.TOPIC, name)));
        resources.add(new ConfigResource(ConfigResource.Type.TOPIC, topics.deadLetter().name()));
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(60, TimeUnit.SECONDS);
        for (ConfigResource resource : resources) {
            boolean deadLetter = resource.name().equals(topics.deadLetter().name());
            long largest = deadLetter ? DeadLetterExceptionHandler.largestDeadLetter(config.deadLetterMaxBytes())
                    : Topics.MAX_OUTPUT_RECORD_BYTES;
            ConfigEntry accepted = configs.get(resource).get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
            if (accepted != null && accepted.value() != null && Long.parseLong(accepted.value()) < largest) {
                throw new IllegalStateException("topic " + resource.name() + " has " + TopicConfig.MAX_MESSAGE_BYTES_CONFIG
                        + "=" + accepted.value() + " but the enforcer writes records of up to " + largest + " bytes there"
                        + (deadLetter ? " (" + EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG + "=" + config.deadLetterMaxBytes()
                        + " each for key, value and headers, and the dead-letter headers); lower that or raise the topic's"
                        : "; raise it"));
            }
        }
        Object producerMax = settings.getOrDefault(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
                settings.getOrDefault(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1024 * 1024));
        long largestDeadLetter = DeadLetterExceptionHandler.largestDeadLetter(config.deadLetterMaxBytes());
        if (Long.parseLong(String.valueOf(producerMax)) < Math.max(largestDeadLetter, Topics.MAX_OUTPUT_RECORD_BYTES)) {
            throw new IllegalStateException("the producer's " + ProducerConfig.MAX_REQUEST_SIZE_CONFIG + "=" + producerMax
                    + " is less than the largest record the enforcer writes, "
                    + Math.max(largestDeadLetter, Topics.MAX_OUTPUT_RECORD_BYTES) + " bytes (a dead letter with "
                    + EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG + "=" + config.deadLetterMaxBytes() + ")");
        }
    }

    /** Waits until the enforcer first reaches RUNNING; false on timeout or if it failed first. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return running.await(timeout.toMillis(), TimeUnit.MILLISECONDS) && streams.state() == KafkaStreams.State.RUNNING;
    }

    /** Blocks until the enforcer stops, by {@link #close} or by an unrecoverable error. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** What it consumes and where, for log lines. */
    public String describe() {
        return describe;
    }

    /**
     * Whether this instance's catalogs assign {@code apiKey} to {@code plan} and hold that plan. The
     * catalogs fill from the plans and api-keys topics after the enforcer starts, through its own
     * validation, so a change published a moment ago may not be in force yet.
     */
    public boolean inForce(String apiKey, String plan) {
        try {
            ReadOnlyKeyValueStore<String, ValueAndTimestamp<String>> keys = streams.store(StoreQueryParameters.fromNameAndType(
                    QuotaTopology.KEY_CATALOG_STORE, QueryableStoreTypes.<String, String>timestampedKeyValueStore()));
            ReadOnlyKeyValueStore<String, ValueAndTimestamp<byte[]>> plans = streams.store(StoreQueryParameters.fromNameAndType(
                    QuotaTopology.PLAN_CATALOG_STORE, QueryableStoreTypes.<String, byte[]>timestampedKeyValueStore()));
            ValueAndTimestamp<String> assigned = keys.get(apiKey);
            return assigned != null && plan.equals(assigned.value()) && plans.get(plan) != null;
        } catch (InvalidStateStoreException e) {
            return false;
        }
    }

    public boolean failed() {
        return streams.state() == KafkaStreams.State.ERROR;
    }

    public KafkaStreams streams() {
        return streams;
    }

    public DecisionStats stats() {
        return stats;
    }

    /** The port of this instance's HTTP API, or -1 when it serves none. */
    public int httpPort() {
        return operatorServer == null ? -1 : operatorServer.port();
    }

    private void report() {
        Map<Reason, Long> now = stats.decisions();
        long total = 0;
        StringJoiner byReason = new StringJoiner(", ");
        for (Map.Entry<Reason, Long> entry : now.entrySet()) {
            long delta = entry.getValue() - lastReport.getOrDefault(entry.getKey(), 0L);
            total += delta;
            if (delta > 0) {
                byReason.add(entry.getKey() + " " + delta);
            }
        }
        lastReport = now;
        LOG.info("last minute: {} decisions ({}/s){}{}; {} dead letters in all", total,
                String.format("%.1f", total / (double) REPORT_INTERVAL.toSeconds()),
                total > 0 ? ": " : "", byReason, stats.deadLetters());
    }

    /** Stops processing and leaves the consumer group, so another instance takes over at once. */
    @Override
    public void close() {
        reporter.shutdownNow();
        if (operatorServer != null) {
            try {
                operatorServer.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        streamsMetrics.close();
        replyTopics.close();
        stopped.countDown();
    }
}

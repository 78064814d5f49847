package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.runtime.Enforcer;
import dev.quotaenforcer.runtime.TopicSetup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code run} and {@code demo} start: the embedded broker when no cluster is named, the
 * topics (with the sample plans on first start), and the enforcer. Closing stops them in reverse.
 */
final class Stack implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Stack.class);

    private final EmbeddedKafka broker;
    private final Enforcer enforcer;
    private final Map<String, Object> settings;
    private final Map<String, String> seededKeys;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Stack(EmbeddedKafka broker, Enforcer enforcer, Map<String, Object> settings, Map<String, String> seededKeys) {
        this.broker = broker;
        this.enforcer = enforcer;
        this.settings = settings;
        this.seededKeys = seededKeys;
    }

    /**
     * @param dataDir     where the embedded broker and the state stores live when no cluster is named
     * @param applyTopics whether to create missing topics on a named cluster (always done on the embedded one)
     */
    static Stack start(Settings given, EmbeddedBrokerOptions embedded, Path dataDir, TopicDefinitions definitions,
                       boolean applyTopics)
            throws InterruptedException {
        boolean embeddedBroker = !given.has(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG);
        // Every other setting is checked before a broker is started for nothing.
        (embeddedBroker ? given.with(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + embedded.port, "embedded broker")
                : given).validate();
        Settings settings = given;
        EmbeddedKafka broker = null;
        if (embeddedBroker) {
            Path kafkaDir = dataDir.resolve("kafka");
            LOG.warn("No cluster given: starting an embedded Kafka broker in this process (data in {}). It is one node for"
                    + " trying quota-enforcer, not for production: name a cluster with --bootstrap-servers.",
                    kafkaDir.toAbsolutePath());
            broker = EmbeddedKafka.start(kafkaDir, embedded.port, embedded.controllerPort);
            LOG.info("Embedded Kafka broker ready at {}", broker.bootstrapServers());
            settings = settings.with(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), "embedded broker");
            if (!settings.has(StreamsConfig.STATE_DIR_CONFIG)) {
                settings = settings.with(StreamsConfig.STATE_DIR_CONFIG,
                        dataDir.resolve("state").toAbsolutePath().toString(), "embedded broker");
            }
            applyTopics = true;
        }
        try {
            Map<String, String> seeded = applyTopics ? TopicSetup.applyAndSeed(settings.values(), definitions).seededKeys()
                    : Map.of();
            Enforcer enforcer = Enforcer.start(settings.values());
            return new Stack(broker, enforcer, settings.values(), seeded);
        } catch (RuntimeException | InterruptedException e) {
            if (broker != null) {
                broker.close();
            }
            throw e;
        }
    }

    Enforcer enforcer() {
        return enforcer;
    }

    Map<String, Object> settings() {
        return settings;
    }

    /**
     * Waits until the enforcer runs and, on a first start, the sample keys and plans are in force,
     * then logs that it is ready: a request sent after that line is decided on its seeded plan.
     */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (!enforcer.awaitReady(timeout) || !awaitInForce(seededKeys, Duration.ofNanos(deadline - System.nanoTime()))) {
            return false;
        }
        LOG.info("quota-enforcer ready: {}", enforcer.describe());
        return true;
    }

    /** Waits until every key is assigned to its plan, and the plan held, in the enforcer's catalogs. */
    boolean awaitInForce(Map<String, String> assignments, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!assignments.entrySet().stream().allMatch(a -> enforcer.inForce(a.getKey(), a.getValue()))) {
            if (System.nanoTime() > deadline || enforcer.failed()) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return true;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        enforcer.close();
        if (broker != null) {
            broker.close();
            LOG.info("Embedded Kafka broker stopped");
        }
    }
}

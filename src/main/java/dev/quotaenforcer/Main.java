package dev.quotaenforcer;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.topology.QuotaTopology;
import dev.quotaenforcer.topology.Topics;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the enforcer against the Kafka cluster named in a properties file until it is stopped. */
public final class Main {

    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java -jar quota-enforcer.jar <config.properties>");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        EnforcerConfig config;
        try {
            config = withRequestPartitions(load(file));
        } catch (ConfigException | IOException e) {
            System.err.println(file + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        KafkaStreams streams = new KafkaStreams(new QuotaTopology(config).build(), config.streamsProperties());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Leave the group, so a restarted or surviving instance gets the tasks at once instead of
            // after session.timeout.ms (45 s), which Streams' plain close() makes everyone wait for.
            streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
            stopped.countDown();
        }, "quota-enforcer-shutdown"));
        streams.setStateListener((now, before) -> {
            LOG.info("Enforcer state {} -> {}", before, now);
            if (now == KafkaStreams.State.ERROR) {
                stopped.countDown();
            }
        });
        streams.start();
        stopped.await();
        if (streams.state() == KafkaStreams.State.ERROR) {
            // Streams does not recover from ERROR: exit, so a supervisor restarts or alerts.
            LOG.error("Enforcer stopped in state ERROR; exiting");
            System.exit(1);
        }
    }

    private static Map<String, Object> load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        }
        Map<String, Object> settings = new HashMap<>();
        properties.stringPropertyNames().forEach(name -> settings.put(name, properties.getProperty(name)));
        // Validates every Streams and client setting now, so a bad value names itself at startup.
        new StreamsConfig(new EnforcerConfig(settings).streamsProperties());
        return settings;
    }

    /** Reads the requests topic's partition count from the cluster, which the re-keying must match. */
    private static EnforcerConfig withRequestPartitions(Map<String, Object> settings) throws IOException {
        EnforcerConfig config = new EnforcerConfig(settings);
        String topic = Topics.withPrefix(config.topicPrefix()).requests().name();
        Map<String, Object> adminSettings = new HashMap<>(settings);
        adminSettings.keySet().retainAll(AdminClientConfig.configNames());
        try (Admin admin = Admin.create(adminSettings)) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get()
                    .get(topic).partitions().size();
            settings.put(EnforcerConfig.REQUEST_PARTITIONS_CONFIG, partitions);
            return new EnforcerConfig(settings);
        } catch (ExecutionException e) {
            throw new IOException("cannot describe topic " + topic + ": " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while describing topic " + topic, e);
        }
    }
}

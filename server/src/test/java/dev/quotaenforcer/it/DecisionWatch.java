package dev.quotaenforcer.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Tails the decisions topic from its beginning while a fault test runs, noting when each request's
 * first decision became visible at the given isolation level: how the suite sees a crash's gap and
 * whether a transaction is open.
 */
final class DecisionWatch implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Long> firstSeenNanos = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile RuntimeException failure;
    private volatile boolean stopped;

    private DecisionWatch(TestCluster cluster, boolean committedOnly) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, committedOnly ? "read_committed" : "read_uncommitted");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        String topic = cluster.topics().decisions().name();
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(this::run, "decision-watch-" + (committedOnly ? "committed" : "uncommitted"));
        thread.setDaemon(true);
        thread.start();
    }

    /** Watches what a read_committed consumer sees. */
    static DecisionWatch committed(TestCluster cluster) {
        return new DecisionWatch(cluster, true);
    }

    /** Watches what a read_uncommitted consumer sees, open transactions included. */
    static DecisionWatch uncommitted(TestCluster cluster) {
        return new DecisionWatch(cluster, false);
    }

    private void run() {
        try {
            while (!stopped) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    firstSeenNanos.putIfAbsent(requestId(record.value()), now);
                }
            }
        } catch (WakeupException e) {
            // close() woke it
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close();
        }
    }

    private static String requestId(byte[] decision) {
        try {
            JsonNode node = JSON.readTree(decision);
            return node.path("requestId").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many distinct requests have a decision visible so far. */
    int decided() {
        check();
        return firstSeenNanos.size();
    }

    /** When the request's first decision became visible (this JVM's nano clock), or null. */
    Long firstSeenNanos(String requestId) {
        return firstSeenNanos.get(requestId);
    }

    private void check() {
        if (failure != null) {
            throw new AssertionError("the decision watch failed: " + failure, failure);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        consumer.wakeup();
        thread.join(10_000);
    }
}

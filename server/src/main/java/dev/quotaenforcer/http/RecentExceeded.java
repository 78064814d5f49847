package dev.quotaenforcer.http;

import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.topology.Topic;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The latest committed quota-exceeded events of every instance, kept in memory by tailing the
 * exceeded topic (read_committed, no consumer group): on start it reads back the last
 * {@code capacity} records of each partition, so the dashboard has history after a restart.
 */
final class RecentExceeded implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RecentExceeded.class);

    private final int capacity;
    private final KafkaConsumer<String, QuotaExceeded> consumer;
    private final Thread reader;
    private final Deque<QuotaExceeded> recent = new ArrayDeque<>();
    private volatile boolean running = true;

    RecentExceeded(Map<String, Object> clientSettings, Topic<String, QuotaExceeded> topic, int capacity) {
        this.capacity = capacity;
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.remove(ConsumerConfig.GROUP_ID_CONFIG);
        // An event this instance cannot read is skipped, not allowed to stop the dashboard's feed.
        Deserializer<QuotaExceeded> lenient = (name, bytes) -> {
            try {
                return topic.valueSerde().deserializer().deserialize(name, bytes);
            } catch (RuntimeException e) {
                LOG.warn("Skipping unreadable quota-exceeded event on {}: {}", name, e.getMessage());
                return null;
            }
        };
        this.consumer = new KafkaConsumer<>(settings, topic.keySerde().deserializer(), lenient);
        this.reader = new Thread(() -> read(topic.name()), "quota-enforcer-recent-exceeded");
        reader.setDaemon(true);
        reader.start();
    }

    private void read(String topicName) {
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topicName, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(topicName, info.partition()))
                    .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            Map<TopicPartition, Long> begins = consumer.beginningOffsets(partitions);
            for (TopicPartition partition : partitions) {
                consumer.seek(partition, Math.max(begins.get(partition), ends.get(partition) - capacity));
            }
            while (running) {
                for (ConsumerRecord<String, QuotaExceeded> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.value() != null) {
                        add(record.value());
                    }
                }
            }
        } catch (WakeupException e) {
            // close() ends the loop.
        } catch (RuntimeException e) {
            LOG.error("Stopped reading recent quota-exceeded events from {}: {}", topicName, e.toString());
        } finally {
            consumer.close();
        }
    }

    private synchronized void add(QuotaExceeded event) {
        recent.addFirst(event);
        while (recent.size() > capacity) {
            recent.removeLast();
        }
    }

    /** Up to {@code limit} events, newest by event time first. */
    synchronized List<QuotaExceeded> latest(int limit) {
        List<QuotaExceeded> events = new ArrayList<>(recent);
        events.sort((a, b) -> b.time().compareTo(a.time()));
        return events.size() > limit ? List.copyOf(events.subList(0, limit)) : events;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        reader.join(10_000);
    }
}

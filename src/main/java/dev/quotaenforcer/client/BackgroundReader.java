package dev.quotaenforcer.client;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * What both gateway clients read with: a consumer at a chosen isolation level (the enforcer writes in
 * transactions), positioned before it starts, handing every record to a handler on a daemon thread
 * until closed.
 */
final class BackgroundReader<K> implements AutoCloseable {

    private final KafkaConsumer<K, byte[]> consumer;
    private final Consumer<ConsumerRecord<K, byte[]>> handler;
    private final Thread thread;
    private volatile boolean closed;

    /**
     * @param isolation whether records of transactions not yet committed are read
     * @param position  assigns the consumer its partitions and seeks; runs before this constructor returns,
     *                  so nothing written after it can be missed
     */
    BackgroundReader(Map<String, Object> kafkaSettings, IsolationLevel isolation, Deserializer<K> keys,
                     Consumer<KafkaConsumer<K, byte[]>> position, Consumer<ConsumerRecord<K, byte[]>> handler,
                     String name) {
        Map<String, Object> settings = new HashMap<>(kafkaSettings);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        this.consumer = new KafkaConsumer<>(settings, keys, new ByteArrayDeserializer());
        this.handler = handler;
        position.accept(consumer);
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (!closed) {
                consumer.poll(Duration.ofMillis(200)).forEach(handler);
            }
        } catch (WakeupException e) {
            // close() woke the poll: done.
        } finally {
            consumer.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

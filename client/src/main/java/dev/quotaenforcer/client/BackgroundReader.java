package dev.quotaenforcer.client;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * What both gateway clients read with: a consumer at a chosen isolation level (the enforcer writes in
 * transactions), positioned and then handing every record to a handler on a daemon thread until
 * closed. Positioning is retried on that thread until the cluster answers, so a gateway that starts
 * while the broker is unreachable gets its client at once.
 */
final class BackgroundReader<K> implements AutoCloseable {

    private final KafkaConsumer<K, byte[]> consumer;
    private final Consumer<ConsumerRecord<K, byte[]>> handler;
    /** How long one attempt to reach the cluster may take before it is retried. */
    static final Duration ATTEMPT = Duration.ofSeconds(2);

    private final Consumer<KafkaConsumer<K, byte[]>> position;
    private final Thread thread;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private volatile boolean closed;

    /**
     * @param isolation whether records of transactions not yet committed are read
     * @param position  assigns the consumer its partitions and seeks; retried on the reader's thread until
     *                  it succeeds, and nothing written after it succeeds is missed
     */
    BackgroundReader(Map<String, Object> kafkaSettings, IsolationLevel isolation, Deserializer<K> keys,
                     Consumer<KafkaConsumer<K, byte[]>> position, Consumer<ConsumerRecord<K, byte[]>> handler,
                     String name) {
        Map<String, Object> settings = new HashMap<>(kafkaSettings);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ATTEMPT.toMillis());
        this.consumer = new KafkaConsumer<>(settings, keys, new ByteArrayDeserializer());
        this.handler = handler;
        this.position = position;
        this.thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits until the consumer is positioned: from then on nothing written is missed. False on timeout. */
    boolean awaitPositioned(Duration timeout) throws InterruptedException {
        return positioned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void run() {
        try {
            while (!closed && positioned.getCount() > 0) {
                try {
                    position.accept(consumer);
                    positioned.countDown();
                } catch (RetriableException e) {
                    // The cluster is not reachable yet (or the topic not there): try again; until then the client's
                    // callers get its fallback.
                    pause();
                }
            }
            while (!closed) {
                consumer.poll(Duration.ofMillis(200)).forEach(handler);
            }
        } catch (WakeupException e) {
            // close() woke the poll: done.
        } finally {
            consumer.close();
        }
    }

    private void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
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

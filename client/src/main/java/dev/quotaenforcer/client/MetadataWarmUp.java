package dev.quotaenforcer.client;

import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Fetches a topic's metadata into a producer that never blocks ({@code max.block.ms=0}), on a daemon
 * thread, retrying until the cluster answers: such a producer refuses every send until it knows the
 * topic, and only asking for it makes it fetch.
 */
final class MetadataWarmUp {

    private MetadataWarmUp() {
    }

    /** @return counted down once the producer knows the topic */
    static CountDownLatch start(KafkaProducer<?, ?> producer, String topic) {
        CountDownLatch known = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    if (!producer.partitionsFor(topic).isEmpty()) {
                        known.countDown();
                        return;
                    }
                } catch (TimeoutException e) {
                    // Not known yet: asking put the request for it on its way.
                } catch (KafkaException e) {
                    // The producer was closed, or the client cannot use the topic: nothing more to fetch.
                    return;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "quota-client-metadata-" + topic);
        thread.setDaemon(true);
        thread.start();
        return known;
    }
}

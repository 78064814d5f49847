package dev.quotaenforcer.admin;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Writes one record and waits until every in-sync replica has it: what each command-line change needs. */
final class RecordSender {

    private RecordSender() {
    }

    static void send(Map<String, Object> settings, String topic, String key, byte[] value) throws InterruptedException {
        Map<String, Object> producerSettings = new HashMap<>(ClientSettings.forProducer(settings));
        producerSettings.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, byte[]> producer =
                     new KafkaProducer<>(producerSettings, new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot write to " + topic + ": " + e.getCause().getMessage(), e.getCause());
        }
    }
}

package dev.quotaenforcer.client;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;

/** What both gateway clients share: the request event record they publish, and reading the enforcer's JSON. */
final class RequestRecords {

    /** Reads the enforcer's records, tolerating fields a newer enforcer may add. */
    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            // Registered after JavaTimeModule, so Jackson asks it first.
            .registerModule(new SimpleModule("enforcer-instants").addDeserializer(Instant.class, new InstantReader()))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private RequestRecords() {
    }

    /** A request event keyed by its API key, stamped with the gateway's time. */
    static ProducerRecord<String, byte[]> request(String topic, String apiKey, long cost, String requestId, long time) {
        try {
            byte[] json = JSON.writeValueAsBytes(Map.of("requestId", requestId, "apiKey", apiKey, "cost", cost,
                    "timestamp", time));
            return new ProducerRecord<>(topic, apiKey, json);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write request " + requestId, e);
        }
    }

    /** Reads a record value of the enforcer's; null if it cannot be read, so one bad record stops no reader. */
    static <T> T read(byte[] json, Class<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (IOException e) {
            return null;
        }
    }
}

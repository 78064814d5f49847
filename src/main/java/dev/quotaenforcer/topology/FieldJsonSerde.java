package dev.quotaenforcer.topology;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * JSON of the records written once per request or per key and commit, written field by field with
 * Jackson's generator: its bean serializer stood out in the deciding thread's profile. The bytes are
 * those {@link JsonSerde} writes, and reading is {@link JsonSerde}'s.
 */
final class FieldJsonSerde<T> implements Serde<T> {

    /** Writes one value's fields, in the order its {@code @JsonPropertyOrder} gives. */
    interface Fields<T> {
        void write(T value, JsonGenerator json) throws IOException;
    }

    private static final JsonFactory FACTORY = JsonSerde.mapper().getFactory();

    private final Class<T> type;
    private final Fields<T> fields;
    private final JsonSerde<T> reader;

    private FieldJsonSerde(Class<T> type, Fields<T> fields) {
        this.type = type;
        this.fields = fields;
        this.reader = new JsonSerde<>(type);
    }

    static FieldJsonSerde<Decision> decisions() {
        return new FieldJsonSerde<>(Decision.class, FieldJsonSerde::writeDecision);
    }

    static FieldJsonSerde<KeyUsage> keyUsage() {
        return new FieldJsonSerde<>(KeyUsage.class, FieldJsonSerde::writeKeyUsage);
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> value == null ? null : write(value, topic);
    }

    @Override
    public Deserializer<T> deserializer() {
        return reader.deserializer();
    }

    private byte[] write(T value, String topic) {
        try (ByteArrayBuilder bytes = new ByteArrayBuilder(384)) {
            try (JsonGenerator json = FACTORY.createGenerator(bytes)) {
                json.writeStartObject();
                fields.write(value, json);
                json.writeEndObject();
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new SerializationException("cannot write " + type.getSimpleName() + " for " + topic, e);
        }
    }

    private static void writeDecision(Decision decision, JsonGenerator json) throws IOException {
        json.writeStringField("requestId", decision.requestId());
        json.writeStringField("apiKey", decision.apiKey());
        json.writeStringField("plan", decision.plan());
        json.writeBooleanField("allowed", decision.allowed());
        json.writeStringField("reason", decision.reason() == null ? null : decision.reason().name());
        json.writeStringField("policy", decision.policy());
        json.writeNumberField("limit", decision.limit());
        json.writeNumberField("remaining", decision.remaining());
        json.writeNumberField("resetSeconds", decision.resetSeconds());
        json.writeNumberField("retryAfterSeconds", decision.retryAfterSeconds());
        json.writeNumberField("delayMs", decision.delayMs());
        writeInstant("eventTime", decision.eventTime(), json);
        json.writeFieldName("headers");
        if (decision.headers() == null) {
            json.writeNull();
            return;
        }
        json.writeStartObject();
        for (Map.Entry<String, String> header : decision.headers().entrySet()) {
            json.writeStringField(header.getKey(), header.getValue());
        }
        json.writeEndObject();
    }

    private static void writeKeyUsage(KeyUsage usage, JsonGenerator json) throws IOException {
        json.writeStringField("apiKey", usage.apiKey());
        json.writeStringField("plan", usage.plan());
        json.writeNumberField("quota", usage.quota());
        writeInstant("hour", usage.hour(), json);
        json.writeNumberField("allowed", usage.allowed());
        json.writeNumberField("denied", usage.denied());
        json.writeNumberField("allowedCost", usage.allowedCost());
        json.writeNumberField("deniedCost", usage.deniedCost());
        json.writeNumberField("quotaDenied", usage.quotaDenied());
    }

    private static void writeInstant(String field, Instant instant, JsonGenerator json) throws IOException {
        json.writeStringField(field, instant == null ? null : instant.toString());
    }
}

package dev.quotaenforcer.topology;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.quotaenforcer.event.Decision;
import java.io.IOException;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Decisions as JSON, written field by field: one is written per request, and Jackson's bean
 * serializer stood out in the deciding thread's profile. The bytes are those {@link JsonSerde} writes.
 */
final class DecisionSerde implements Serde<Decision> {

    private static final JsonFactory FACTORY = JsonSerde.mapper().getFactory();
    private static final JsonSerde<Decision> READER = new JsonSerde<>(Decision.class);

    @Override
    public Serializer<Decision> serializer() {
        return (topic, decision) -> decision == null ? null : write(decision, topic);
    }

    @Override
    public Deserializer<Decision> deserializer() {
        return READER.deserializer();
    }

    static byte[] write(Decision decision, String topic) {
        try (ByteArrayBuilder bytes = new ByteArrayBuilder(384)) {
            try (JsonGenerator json = FACTORY.createGenerator(bytes)) {
                json.writeStartObject();
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
                json.writeStringField("eventTime", decision.eventTime() == null ? null : decision.eventTime().toString());
                json.writeFieldName("headers");
                if (decision.headers() == null) {
                    json.writeNull();
                } else {
                    json.writeStartObject();
                    for (Map.Entry<String, String> header : decision.headers().entrySet()) {
                        json.writeStringField(header.getKey(), header.getValue());
                    }
                    json.writeEndObject();
                }
                json.writeEndObject();
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new SerializationException("cannot write a decision for " + topic, e);
        }
    }
}

package dev.quotaenforcer.topology;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
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
    // Field names encoded once, not on every record.
    private static final SerializableString REQUEST_ID = new SerializedString("requestId");
    private static final SerializableString API_KEY = new SerializedString("apiKey");
    private static final SerializableString PLAN = new SerializedString("plan");
    private static final SerializableString ALLOWED = new SerializedString("allowed");
    private static final SerializableString REASON = new SerializedString("reason");
    private static final SerializableString POLICY = new SerializedString("policy");
    private static final SerializableString LIMIT = new SerializedString("limit");
    private static final SerializableString REMAINING = new SerializedString("remaining");
    private static final SerializableString RESET_SECONDS = new SerializedString("resetSeconds");
    private static final SerializableString RETRY_AFTER_SECONDS = new SerializedString("retryAfterSeconds");
    private static final SerializableString DELAY_MS = new SerializedString("delayMs");
    private static final SerializableString EVENT_TIME = new SerializedString("eventTime");
    private static final SerializableString HEADERS = new SerializedString("headers");
    private static final SerializableString QUOTA = new SerializedString("quota");
    private static final SerializableString HOUR = new SerializedString("hour");
    private static final SerializableString DENIED = new SerializedString("denied");
    private static final SerializableString ALLOWED_COST = new SerializedString("allowedCost");
    private static final SerializableString DENIED_COST = new SerializedString("deniedCost");
    private static final SerializableString QUOTA_DENIED = new SerializedString("quotaDenied");

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
        writeString(REQUEST_ID, decision.requestId(), json);
        writeString(API_KEY, decision.apiKey(), json);
        writeString(PLAN, decision.plan(), json);
        json.writeFieldName(ALLOWED);
        json.writeBoolean(decision.allowed());
        writeString(REASON, decision.reason() == null ? null : decision.reason().name(), json);
        writeString(POLICY, decision.policy(), json);
        writeNumber(LIMIT, decision.limit(), json);
        writeNumber(REMAINING, decision.remaining(), json);
        writeNumber(RESET_SECONDS, decision.resetSeconds(), json);
        writeNumber(RETRY_AFTER_SECONDS, decision.retryAfterSeconds(), json);
        writeNumber(DELAY_MS, decision.delayMs(), json);
        writeInstant(EVENT_TIME, decision.eventTime(), json);
        json.writeFieldName(HEADERS);
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
        writeString(API_KEY, usage.apiKey(), json);
        writeString(PLAN, usage.plan(), json);
        writeNumber(QUOTA, usage.quota(), json);
        writeInstant(HOUR, usage.hour(), json);
        writeNumber(ALLOWED, usage.allowed(), json);
        writeNumber(DENIED, usage.denied(), json);
        writeNumber(ALLOWED_COST, usage.allowedCost(), json);
        writeNumber(DENIED_COST, usage.deniedCost(), json);
        writeNumber(QUOTA_DENIED, usage.quotaDenied(), json);
    }

    private static void writeString(SerializableString field, String value, JsonGenerator json) throws IOException {
        json.writeFieldName(field);
        json.writeString(value);
    }

    private static void writeNumber(SerializableString field, long value, JsonGenerator json) throws IOException {
        json.writeFieldName(field);
        json.writeNumber(value);
    }

    private static void writeInstant(SerializableString field, Instant instant, JsonGenerator json) throws IOException {
        writeString(field, instant == null ? null : InstantText.of(instant), json);
    }
}

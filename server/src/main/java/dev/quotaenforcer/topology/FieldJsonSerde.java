package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.RateLimitHeaders;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * JSON of the records written once per request or per key and commit, written field by field into
 * bytes ({@link JsonBytes}): Jackson's bean serializer, and then its generator's set-up per record,
 * stood out in the deciding thread's profile. The bytes are those {@link JsonSerde} writes, and
 * reading is {@link JsonSerde}'s.
 */
final class FieldJsonSerde<T> implements Serde<T> {

    /** Writes one value's fields, in the order its {@code @JsonPropertyOrder} gives. */
    interface Fields<T> {
        void write(T value, JsonBytes json);
    }

    private static final JsonBytes.Name REQUEST_ID = JsonBytes.Name.of("requestId");
    private static final JsonBytes.Name API_KEY = JsonBytes.Name.of("apiKey");
    private static final JsonBytes.Name PLAN = JsonBytes.Name.of("plan");
    private static final JsonBytes.Name ALLOWED = JsonBytes.Name.of("allowed");
    private static final JsonBytes.Name REASON = JsonBytes.Name.of("reason");
    private static final JsonBytes.Name POLICY = JsonBytes.Name.of("policy");
    private static final JsonBytes.Name LIMIT = JsonBytes.Name.of("limit");
    private static final JsonBytes.Name REMAINING = JsonBytes.Name.of("remaining");
    private static final JsonBytes.Name RESET_SECONDS = JsonBytes.Name.of("resetSeconds");
    private static final JsonBytes.Name RETRY_AFTER_SECONDS = JsonBytes.Name.of("retryAfterSeconds");
    private static final JsonBytes.Name DELAY_MS = JsonBytes.Name.of("delayMs");
    private static final JsonBytes.Name EVENT_TIME = JsonBytes.Name.of("eventTime");
    private static final JsonBytes.Name HEADERS = JsonBytes.Name.of("headers");
    private static final JsonBytes.Name QUOTA = JsonBytes.Name.of("quota");
    private static final JsonBytes.Name HOUR = JsonBytes.Name.of("hour");
    private static final JsonBytes.Name DENIED = JsonBytes.Name.of("denied");
    private static final JsonBytes.Name ALLOWED_COST = JsonBytes.Name.of("allowedCost");
    private static final JsonBytes.Name DENIED_COST = JsonBytes.Name.of("deniedCost");
    private static final JsonBytes.Name QUOTA_DENIED = JsonBytes.Name.of("quotaDenied");

    /** Each reason's text, by ordinal. */
    private static final JsonBytes.Text[] REASONS = Arrays.stream(Reason.values())
            .map(reason -> JsonBytes.Text.of(reason.name())).toArray(JsonBytes.Text[]::new);
    private static final JsonBytes.Name RETRY_AFTER_HEADER = JsonBytes.Name.of(RateLimitHeaders.RETRY_AFTER);
    private static final JsonBytes.Name LIMIT_HEADER = JsonBytes.Name.of(RateLimitHeaders.LIMIT);
    private static final JsonBytes.Name REMAINING_HEADER = JsonBytes.Name.of(RateLimitHeaders.REMAINING);
    private static final JsonBytes.Name RESET_HEADER = JsonBytes.Name.of(RateLimitHeaders.RESET);
    private static final JsonBytes.Name POLICY_HEADER = JsonBytes.Name.of(RateLimitHeaders.POLICY);
    private static final JsonBytes.Name RATE_LIMIT_HEADER = JsonBytes.Name.of(RateLimitHeaders.RATE_LIMIT);
    private static final byte[] RESET_PART = ";t=".getBytes(StandardCharsets.US_ASCII);

    /** Each thread's buffer and the value it wrote last ({@link Scratch}). */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    /** A buffer grown past this by an outsized record is let go rather than kept for the thread's life. */
    private static final int MAX_KEPT_BYTES = 64 * 1024;

    /**
     * A thread's buffer, reused record after record: a new buffer per decision, and a second of twice the
     * size once the decision outgrew it, were a sixth of what the deciding thread allocated. Beside it, the
     * value whose bytes the buffer holds: a decision goes to the decisions topic and then, as its reply, to
     * the gateway waiting for it, and is written once for both, its bytes copied again for the reply. Matched
     * by identity, as values are immutable records and each type has one writer.
     */
    private static final class Scratch {
        final JsonBytes json = new JsonBytes();
        Object lastValue;
    }

    private final Supplier<Fields<T>> fields;
    private final JsonSerde<T> reader;

    /** @param fields a writer per serializer: one may keep the text of strings it wrote (see {@link Repeated}) */
    FieldJsonSerde(Class<T> type, Supplier<Fields<T>> fields) {
        this.fields = fields;
        this.reader = new JsonSerde<>(type);
    }

    static FieldJsonSerde<Decision> decisions() {
        return new FieldJsonSerde<>(Decision.class, DecisionFields::new);
    }

    static FieldJsonSerde<KeyUsage> keyUsage() {
        return new FieldJsonSerde<>(KeyUsage.class, () -> FieldJsonSerde::writeKeyUsage);
    }

    @Override
    public Serializer<T> serializer() {
        Fields<T> writer = fields.get();
        return (topic, value) -> {
            if (value == null) {
                return null;
            }
            Scratch scratch = SCRATCH.get();
            if (value == scratch.lastValue) {
                return scratch.json.toByteArray();
            }
            // Cleared first: a writer that throws leaves part of a record in the buffer.
            scratch.lastValue = null;
            JsonBytes json = scratch.json.reset().startObject();
            writer.write(value, json);
            byte[] written = json.endObject().toByteArray();
            if (json.capacity() > MAX_KEPT_BYTES) {
                SCRATCH.remove();
            } else {
                scratch.lastValue = value;
            }
            return written;
        };
    }

    @Override
    public Deserializer<T> deserializer() {
        return reader.deserializer();
    }

    /**
     * Writes decisions, keeping the text of the plans, the policies and the {@code RateLimit-Policy}
     * values written: the same few strings decision after decision (the plans' own), so each is escaped
     * once rather than character by character per decision.
     */
    private static final class DecisionFields implements Fields<Decision> {
        private final Repeated plan = new Repeated(JsonBytes.Text::of);
        private final Repeated policy = new Repeated(JsonBytes.Text::of);
        private final Repeated policyHeader = new Repeated(JsonBytes.Text::of);
        private final Repeated rateLimitOpening = new Repeated(name -> JsonBytes.Text.opening('"' + name + "\";r="));

        @Override
        public void write(Decision decision, JsonBytes json) {
            json.field(REQUEST_ID).string(decision.requestId())
                    .field(API_KEY).string(decision.apiKey());
            plan.write(decision.plan(), json.field(PLAN));
            json.field(ALLOWED).bool(decision.allowed()).field(REASON);
            if (decision.reason() == null) {
                json.nullValue();
            } else {
                json.string(REASONS[decision.reason().ordinal()]);
            }
            policy.write(decision.policy(), json.field(POLICY));
            json.field(LIMIT).number(decision.limit())
                    .field(REMAINING).number(decision.remaining())
                    .field(RESET_SECONDS).number(decision.resetSeconds())
                    .field(RETRY_AFTER_SECONDS).number(decision.retryAfterSeconds())
                    .field(DELAY_MS).number(decision.delayMs())
                    .field(EVENT_TIME);
            instant(decision.eventTime(), json);
            json.field(HEADERS);
            if (decision.headers() == null) {
                json.nullValue();
                return;
            }
            json.startObject();
            if (decision.headers() instanceof RateLimitHeaders.Values values) {
                writeHeaders(values, json);
            } else {
                for (Map.Entry<String, String> header : decision.headers().entrySet()) {
                    json.field(header.getKey()).string(header.getValue());
                }
            }
            json.endObject();
        }

        /** The headers as {@link RateLimitHeaders.Values#entrySet} has them, from their numbers and names. */
        private void writeHeaders(RateLimitHeaders.Values values, JsonBytes json) {
            if (values.hasRetryAfter()) {
                json.field(RETRY_AFTER_HEADER).quotedNumber(values.retryAfterSeconds());
            }
            if (!values.hasRateLimit()) {
                return;
            }
            json.field(LIMIT_HEADER).quotedNumber(values.limit())
                    .field(REMAINING_HEADER).quotedNumber(values.remaining())
                    .field(RESET_HEADER).quotedNumber(values.resetSeconds());
            policyHeader.write(values.policyValue(), json.field(POLICY_HEADER));
            // "<policy>";r=<remaining>;t=<reset>, the policy's part written once per policy (its text as
            // RateLimitHeaders quotes it: valueOf keeps a name the same object, and makes none "null").
            rateLimitOpening.write(String.valueOf(values.policy()), json.field(RATE_LIMIT_HEADER));
            json.number(values.remaining()).raw(RESET_PART).number(values.resetSeconds()).closeString();
        }
    }

    /**
     * The strings one field of a serializer wrote, with their JSON text, so a string written before is
     * appended as bytes: a plan's policies take turns binding, and with one string kept, each turn
     * encoded its text again. Kept by hash, one per slot; a slot's entry is immutable, so a thread that
     * finds another's finds it whole, and at worst a text is encoded again.
     */
    private static final class Repeated {
        /** Slots for the strings kept: plans and their policies, far fewer than this in most deployments. */
        private static final int SLOTS = 64;

        private record Known(String text, JsonBytes.Text json) {
        }

        private final Function<String, JsonBytes.Text> encoding;
        private final Known[] known = new Known[SLOTS];

        Repeated(Function<String, JsonBytes.Text> encoding) {
            this.encoding = encoding;
        }

        void write(String text, JsonBytes json) {
            if (text == null) {
                json.nullValue();
                return;
            }
            int slot = text.hashCode() & (SLOTS - 1);
            Known seen = known[slot];
            if (seen == null || seen.text() != text && !seen.text().equals(text)) {
                seen = new Known(text, encoding.apply(text));
                known[slot] = seen;
            }
            json.string(seen.json());
        }
    }

    private static void writeKeyUsage(KeyUsage usage, JsonBytes json) {
        json.field(API_KEY).string(usage.apiKey())
                .field(PLAN).string(usage.plan())
                .field(QUOTA).number(usage.quota())
                .field(HOUR);
        instant(usage.hour(), json);
        json.field(ALLOWED).number(usage.allowed())
                .field(DENIED).number(usage.denied())
                .field(ALLOWED_COST).number(usage.allowedCost())
                .field(DENIED_COST).number(usage.deniedCost())
                .field(QUOTA_DENIED).number(usage.quotaDenied());
    }

    private static void instant(Instant instant, JsonBytes json) {
        if (instant == null) {
            json.nullValue();
        } else {
            InstantText.write(instant, json);
        }
    }
}

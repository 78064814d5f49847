package dev.quotaenforcer.topology;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import dev.quotaenforcer.bench.ShortJmhRun;
import dev.quotaenforcer.engine.RateLimitHeaders;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import dev.quotaenforcer.plan.PolicyKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.Serializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.runner.RunnerException;

/** JMH benchmarks of writing one decision as JSON: the hand-written writer against Jackson's bean serializer and a reused Jackson generator. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DecisionJsonBenchmarks {

    static final String TOPIC = "quota.decisions";

    /** The plan the headers are computed for: a per-minute rate limit and an hourly quota, as a typical plan has. */
    static final Plan PLAN = new Plan("pro", List.of(
            new PlanPolicy(LimitPolicy.window("per-minute", Algorithm.SLIDING_WINDOW_COUNTER, 100, Duration.ofMinutes(1)),
                    PolicyKind.RATE),
            new PlanPolicy(LimitPolicy.window("hourly", Algorithm.FIXED_WINDOW, 5_000, Duration.ofHours(1)),
                    PolicyKind.QUOTA)));

    /** The decisions the topology writes most: an admitted request, and one denied with a Retry-After. */
    public enum Shape {
        ALLOWED, DENIED;

        Decision decision() {
            Instant at = Instant.parse("2026-11-30T19:35:12.345Z");
            Decision decision = this == ALLOWED
                    ? new Decision("7f3c9a2e-5b1d-4e8f-9a6c-2d4b8e1f0a37", "key-live-4f9a2c", "pro", true, Reason.OK,
                            "per-minute", 100, 37, 23, 0, 0, at, null)
                    : new Decision("c21e8b4a-0f6d-4a3b-8e2c-9b7d1f5a6e04", "key-live-4f9a2c", "pro", false,
                            Reason.RATE_LIMITED, "per-minute", 100, 0, 23, 23, 0, at, null);
            // The headers as the engine builds them, from the decision's own fields.
            return decision.withHeaders(RateLimitHeaders.of(PLAN, decision));
        }
    }

    /** One decision and the three writers, checked in set-up to write the same bytes. */
    @State(Scope.Thread)
    public static class Writers {
        @Param
        public Shape shape;

        Decision decision;
        /** An equal decision of its own: the hand-written writer writes each value once per thread in a row. */
        Decision twin;
        boolean twinNext;
        Serializer<Decision> handWritten;
        /** The reply topic's writer, as the topology writes a decision's reply right after its record. */
        Serializer<Decision> replies;
        Serializer<Decision> objectMapper;
        ReusedGenerator generator;

        @Setup
        public void setUp() throws IOException {
            decision = shape.decision();
            twin = shape.decision();
            handWritten = FieldJsonSerde.decisions().serializer();
            replies = FieldJsonSerde.decisions().serializer();
            objectMapper = new JsonSerde<>(Decision.class).serializer();
            generator = new ReusedGenerator();
            verify(decision);
        }

        /** Throws unless all three writers write these bytes, the generator also on a second, reused write. */
        void verify(Decision value) {
            byte[] expected = objectMapper.serialize(TOPIC, value);
            check("hand-written", expected, handWritten.serialize(TOPIC, value));
            check("hand-written, for the reply", expected, replies.serialize(TOPIC, value));
            check("reused generator", expected, generator.write(value));
            check("reused generator, again", expected, generator.write(value));
        }

        /** The decision and its twin in turns, so that each write is a new value's. */
        Decision next() {
            twinNext = !twinNext;
            return twinNext ? twin : decision;
        }

        private static void check(String writer, byte[] expected, byte[] written) {
            if (!Arrays.equals(expected, written)) {
                throw new IllegalStateException(writer + " wrote " + new String(written, StandardCharsets.UTF_8)
                        + ", Jackson's bean serializer " + new String(expected, StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * A Jackson generator made once over a reusable buffer, writing the fields in
     * {@link FieldJsonSerde}'s order: Jackson without its per-record set-up, the cost the hand-written
     * writer was made to avoid.
     */
    static final class ReusedGenerator {
        private static final SerializedString REQUEST_ID = new SerializedString("requestId");
        private static final SerializedString API_KEY = new SerializedString("apiKey");
        private static final SerializedString PLAN = new SerializedString("plan");
        private static final SerializedString ALLOWED = new SerializedString("allowed");
        private static final SerializedString REASON = new SerializedString("reason");
        private static final SerializedString POLICY = new SerializedString("policy");
        private static final SerializedString LIMIT = new SerializedString("limit");
        private static final SerializedString REMAINING = new SerializedString("remaining");
        private static final SerializedString RESET_SECONDS = new SerializedString("resetSeconds");
        private static final SerializedString RETRY_AFTER_SECONDS = new SerializedString("retryAfterSeconds");
        private static final SerializedString DELAY_MS = new SerializedString("delayMs");
        private static final SerializedString EVENT_TIME = new SerializedString("eventTime");
        private static final SerializedString HEADERS = new SerializedString("headers");

        private final ByteArrayBuilder buffer = new ByteArrayBuilder(384);
        private final JsonGenerator json;

        ReusedGenerator() {
            try {
                json = JsonSerde.MAPPER.createGenerator(buffer, JsonEncoding.UTF8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // Each record is a root value; by default the generator puts a space between root values.
            json.setRootValueSeparator(null);
        }

        byte[] write(Decision decision) {
            try {
                buffer.reset();
                json.writeStartObject();
                writeString(REQUEST_ID, decision.requestId());
                writeString(API_KEY, decision.apiKey());
                writeString(PLAN, decision.plan());
                json.writeFieldName(ALLOWED);
                json.writeBoolean(decision.allowed());
                writeString(REASON, decision.reason() == null ? null : decision.reason().name());
                writeString(POLICY, decision.policy());
                writeNumber(LIMIT, decision.limit());
                writeNumber(REMAINING, decision.remaining());
                writeNumber(RESET_SECONDS, decision.resetSeconds());
                writeNumber(RETRY_AFTER_SECONDS, decision.retryAfterSeconds());
                writeNumber(DELAY_MS, decision.delayMs());
                // The same instant text as the hand-written writer, so only the writers differ.
                writeString(EVENT_TIME, decision.eventTime() == null ? null : InstantText.of(decision.eventTime()));
                json.writeFieldName(HEADERS);
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
                // The generator buffers internally; flushing moves this record into the builder.
                json.flush();
                return buffer.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void writeString(SerializedString name, String value) throws IOException {
            json.writeFieldName(name);
            json.writeString(value);
        }

        private void writeNumber(SerializedString name, long value) throws IOException {
            json.writeFieldName(name);
            json.writeNumber(value);
        }
    }

    @Benchmark
    public byte[] handWritten(Writers writers) {
        return writers.handWritten.serialize(TOPIC, writers.next());
    }

    /** A decision's record on the decisions topic, then its reply to the gateway waiting for it. */
    @Benchmark
    public byte[] handWrittenWithReply(Writers writers) {
        Decision decision = writers.next();
        writers.handWritten.serialize(TOPIC, decision);
        return writers.replies.serialize(TOPIC, decision);
    }

    @Benchmark
    public byte[] jacksonObjectMapper(Writers writers) {
        return writers.objectMapper.serialize(TOPIC, writers.next());
    }

    @Benchmark
    public byte[] jacksonReusedGenerator(Writers writers) {
        return writers.generator.write(writers.next());
    }

    /** A short run of these benchmarks alone: 1 fork, 3 warm-up and 5 measured iterations of 1 s. */
    public static void main(String[] args) throws RunnerException {
        ShortJmhRun.run(DecisionJsonBenchmarks.class);
    }
}

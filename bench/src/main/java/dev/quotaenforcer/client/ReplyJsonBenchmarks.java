package dev.quotaenforcer.client;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.quotaenforcer.bench.ShortJmhRun;
import dev.quotaenforcer.event.Decision;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.runner.RunnerException;

/**
 * JMH benchmarks of a gateway client reading one decision the enforcer replied: the client's reader
 * against Jackson with JavaTimeModule's formatter for the event time.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReplyJsonBenchmarks {

    /** A denial as the enforcer writes it, its headers included. */
    static final byte[] DECISION = ("{\"requestId\":\"7f3c9a2e-5b1d-4e8f-9a6c-2d4b8e1f0a37\",\"apiKey\":\"key-live-4f9a2c\","
            + "\"plan\":\"free\",\"allowed\":false,\"reason\":\"RATE_LIMITED\",\"policy\":\"per-minute\",\"limit\":100,"
            + "\"remaining\":0,\"resetSeconds\":60,\"retryAfterSeconds\":1,\"delayMs\":0,"
            + "\"eventTime\":\"2026-11-30T12:01:00.250Z\",\"headers\":{\"Retry-After\":\"1\",\"RateLimit-Limit\":\"100\","
            + "\"RateLimit-Remaining\":\"0\",\"RateLimit-Reset\":\"60\","
            + "\"RateLimit-Policy\":\"\\\"per-minute\\\";q=100;w=60, \\\"hourly\\\";q=1000;w=3600\","
            + "\"RateLimit\":\"\\\"per-minute\\\";r=0;t=60\"}}").getBytes(StandardCharsets.UTF_8);

    /** Both readers, checked in set-up to read the same decision. */
    @State(Scope.Thread)
    public static class Readers {
        ObjectMapper jackson;

        @Setup
        public void setUp() throws IOException {
            jackson = new ObjectMapper().registerModule(new JavaTimeModule())
                    .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
            Decision client = RequestRecords.read(DECISION, Decision.class);
            Decision formatter = jackson.readValue(DECISION, Decision.class);
            if (client == null || !client.equals(formatter)) {
                throw new IllegalStateException("the client read " + client + ", Jackson " + formatter);
            }
        }
    }

    @Benchmark
    public Decision client() {
        return RequestRecords.read(DECISION, Decision.class);
    }

    @Benchmark
    public Decision jacksonFormatter(Readers readers) throws IOException {
        return readers.jackson.readValue(DECISION, Decision.class);
    }

    /** A short run of these benchmarks alone: 1 fork, 3 warm-up and 5 measured iterations of 1 s. */
    public static void main(String[] args) throws RunnerException {
        ShortJmhRun.run(ReplyJsonBenchmarks.class);
    }
}

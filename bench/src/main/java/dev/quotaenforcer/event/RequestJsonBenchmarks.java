package dev.quotaenforcer.event;

import dev.quotaenforcer.bench.ShortJmhRun;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.runner.RunnerException;

/** JMH benchmarks of reading one request event: the byte scanner against Jackson's token-by-token read. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RequestJsonBenchmarks {

    static final long RECORD_TIME = 1_796_040_000_000L;
    static final long MAX_COST = 1_000_000;
    static final long MAX_AHEAD_MS = 3_600_000;

    /** The requests gateways send most: the Java client's (epoch milliseconds) and the throughput scenario's (ISO text). */
    public enum Shape {
        JAVA_CLIENT("{\"cost\":1,\"timestamp\":1796039999250,\"requestId\":\"7f3c9a2e-5b1d-4e8f-9a6c-2d4b8e1f0a37\","
                + "\"apiKey\":\"key-live-4f9a2c\"}"),
        ISO_TIME("{\"requestId\":\"r-1048576\",\"apiKey\":\"key-31337\",\"cost\":1,\"timestamp\":\"2026-11-30T11:59:59.250Z\"}");

        final byte[] json;

        Shape(String json) {
            this.json = json.getBytes(StandardCharsets.UTF_8);
        }
    }

    /** One request and both readers, checked in set-up to read the same event. */
    @State(Scope.Thread)
    public static class Readers {
        @Param
        public Shape shape;

        byte[] json;
        RequestParser parser;

        @Setup
        public void setUp() {
            json = shape.json;
            parser = new RequestParser(8192, MAX_COST, MAX_AHEAD_MS);
            verify();
        }

        /** Throws unless the scanner reads the request, and reads it as Jackson does. */
        void verify() {
            RequestEvent scanned = RequestScanner.read(json, RECORD_TIME, MAX_COST, MAX_AHEAD_MS);
            RequestEvent tokens = parser.readWellFormed(json, RECORD_TIME);
            if (scanned == null || !scanned.equals(tokens)) {
                throw new IllegalStateException("the scanner read " + scanned + ", Jackson " + tokens + " from "
                        + new String(json, StandardCharsets.UTF_8));
            }
        }
    }

    @Benchmark
    public RequestEvent scanner(Readers readers) {
        return RequestScanner.read(readers.json, RECORD_TIME, MAX_COST, MAX_AHEAD_MS);
    }

    @Benchmark
    public RequestEvent jacksonTokens(Readers readers) {
        return readers.parser.readWellFormed(readers.json, RECORD_TIME);
    }

    /** A short run of these benchmarks alone: 1 fork, 3 warm-up and 5 measured iterations of 1 s. */
    public static void main(String[] args) throws RunnerException {
        ShortJmhRun.run(RequestJsonBenchmarks.class);
    }
}

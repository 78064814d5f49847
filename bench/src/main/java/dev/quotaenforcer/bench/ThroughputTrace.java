package dev.quotaenforcer.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The throughput trace: requests over Zipf-distributed API keys (a few hot keys over their limits, a
 * long tail), their event times spread evenly over the hour before it is made, decided against one plan.
 */
public final class ThroughputTrace {

    /** The plan every key of the trace is decided against, as the enforcer's default plan. */
    public static final String PLAN = """
            {"id": "bench",
             "rateLimits": [{"name": "per-second", "algorithm": "sliding-window-counter", "limit": 20, "window": "PT1S"}],
             "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 2000, "window": "PT1H"}}""";
    public static final String PLAN_ID = "bench";
    private static final Duration LENGTH = Duration.ofHours(1);
    /**
     * The broker stamps each request when it is produced, and the enforcer decides nothing more than
     * its lateness bound behind that: the trace's hour of event times ends before production starts,
     * and the enforcer under test is given a bound that reaches over it (keys are then kept that long
     * past their windows, which no run here lasts).
     */
    public static final Duration LATENESS = LENGTH.multipliedBy(2);

    /** One request of the trace: the API key it is keyed by, and its JSON. */
    public record Request(String apiKey, byte[] json) {
    }

    private final ZipfKeys keys;
    private final Instant start;
    private final long stepMicros;
    private int next;

    /** A trace of {@code events} requests over {@code keys} keys, whose hour of event times ends at {@code end}. */
    public ThroughputTrace(int events, int keys, long seed, Instant end) {
        this.keys = new ZipfKeys(keys, 1.0, seed);
        this.start = end.minus(LENGTH).truncatedTo(ChronoUnit.SECONDS);
        this.stepMicros = LENGTH.toMillis() * 1000 / events;
    }

    public Request next() {
        int i = next++;
        String apiKey = "key-" + keys.next();
        String json = "{\"requestId\":\"r-" + i + "\",\"apiKey\":\"" + apiKey + "\",\"cost\":1,\"timestamp\":\""
                + start.plusNanos(i * stepMicros * 1000) + "\"}";
        return new Request(apiKey, json.getBytes(StandardCharsets.UTF_8));
    }

    /** API key ranks drawn with probability proportional to 1/rank^s: a few hot keys, a long tail. */
    private static final class ZipfKeys {

        private final double[] cumulative;
        private final SplittableRandom random;

        ZipfKeys(int keys, double exponent, long seed) {
            cumulative = new double[keys];
            double total = 0;
            for (int rank = 1; rank <= keys; rank++) {
                total += 1 / Math.pow(rank, exponent);
                cumulative[rank - 1] = total;
            }
            for (int i = 0; i < keys; i++) {
                cumulative[i] /= total;
            }
            random = new SplittableRandom(seed);
        }

        int next() {
            int index = Arrays.binarySearch(cumulative, random.nextDouble());
            return Math.min(cumulative.length - 1, index >= 0 ? index : -index - 1);
        }
    }
}

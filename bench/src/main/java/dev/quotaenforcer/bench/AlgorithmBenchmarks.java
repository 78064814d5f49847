package dev.quotaenforcer.bench;

import com.google.common.util.concurrent.RateLimiter;
import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.KeyStateCodec;
import dev.quotaenforcer.engine.PlanEvaluation;
import dev.quotaenforcer.engine.QuotaEngine;
import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.PolicyOutcome;
import dev.quotaenforcer.limit.PolicyState;
import dev.quotaenforcer.limit.RefillRate;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import dev.quotaenforcer.plan.PolicyKind;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.local.SynchronizationStrategy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * JMH benchmarks of one decision: each of our algorithms on its own state, the engine path the
 * topology runs per record, and Bucket4j's and Guava's local limiters. Every limiter sees the same
 * traffic, one request every {@link #STEP_MS} of simulated time against 100 per minute: 1.2x the
 * sustained rate, so a key sits at its limit and about one request in six is denied, the mix where
 * both the admit and the deny paths count.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AlgorithmBenchmarks {

    static final long LIMIT = 100;
    static final Duration WINDOW = Duration.ofMinutes(1);
    static final long STEP_MS = 500;
    static final long START = BurstyTrace.START;

    /** The policy each of our algorithms is measured with: 100 per minute, as a window or as a bucket. */
    static LimitPolicy policy(Algorithm algorithm) {
        return algorithm.windowed()
                ? LimitPolicy.window("bench", algorithm, LIMIT, WINDOW)
                : LimitPolicy.bucket("bench", algorithm, LIMIT, RefillRate.of(LIMIT, WINDOW));
    }

    /** One of our algorithms with its state threaded from decision to decision. */
    @State(Scope.Thread)
    public static class Ours {
        @Param({"fixed-window", "sliding-window-counter", "sliding-window-log", "token-bucket", "leaky-bucket"})
        public String algorithm;

        LimitPolicy policy;
        PolicyState state;
        long now;

        @Setup
        public void setUp() {
            policy = policy(Algorithm.fromId(algorithm).orElseThrow());
            state = null;
            now = START;
        }
    }

    @Benchmark
    public Verdict ours(Ours key) {
        PolicyOutcome outcome = key.policy.decide(key.state, key.now, 1);
        key.state = outcome.state();
        key.now += STEP_MS;
        return outcome.verdict();
    }

    /** A key on a plan of a sliding-window-counter rate limit and an hourly quota, stored as the topology stores it. */
    @State(Scope.Thread)
    public static class EngineKey {
        Plan plan;
        byte[] stored;
        long now;

        @Setup
        public void setUp() {
            plan = new Plan("bench", List.of(
                    new PlanPolicy(LimitPolicy.window("per-minute", Algorithm.SLIDING_WINDOW_COUNTER, LIMIT, WINDOW),
                            PolicyKind.RATE),
                    new PlanPolicy(LimitPolicy.window("hourly", Algorithm.FIXED_WINDOW, 5_000, Duration.ofHours(1)),
                            PolicyKind.QUOTA)));
            stored = null;
            now = START;
        }
    }

    /** What the topology does per record: decode the stored state, evaluate every policy, encode the new state. */
    @Benchmark
    public boolean engine(EngineKey key) {
        KeyState previous = key.stored == null ? null : KeyStateCodec.decode(key.stored);
        PlanEvaluation evaluation = QuotaEngine.evaluate(key.plan, previous, key.now, 1);
        key.stored = KeyStateCodec.encode(evaluation.state());
        key.now += STEP_MS;
        return evaluation.allowed();
    }

    /**
     * Bucket4j's local token bucket of the same capacity and greedy refill, on a clock the benchmark
     * moves as it moves ours, so neither pays for reading the system clock.
     */
    @State(Scope.Thread)
    public static class Bucket4jBucket implements TimeMeter {
        @Param({"NONE", "LOCK_FREE"})
        public String synchronization;

        Bucket bucket;
        long nanos;

        @Setup
        public void setUp() {
            nanos = TimeUnit.MILLISECONDS.toNanos(START);
            bucket = Bucket.builder()
                    .addLimit(limit -> limit.capacity(LIMIT).refillGreedy(LIMIT, WINDOW))
                    .withCustomTimePrecision(this)
                    .withSynchronizationStrategy(SynchronizationStrategy.valueOf(synchronization))
                    .build();
        }

        @Override
        public long currentTimeNanos() {
            return nanos;
        }

        @Override
        public boolean isWallClockBased() {
            return false;
        }
    }

    /** The Bucket4j call that answers what our verdict does: allowed, tokens remaining, nanoseconds to wait. */
    @Benchmark
    public ConsumptionProbe bucket4j(Bucket4jBucket key) {
        ConsumptionProbe probe = key.bucket.tryConsumeAndReturnRemaining(1);
        key.nanos += TimeUnit.MILLISECONDS.toNanos(STEP_MS);
        return probe;
    }

    /** Guava's RateLimiter at 100 per minute; it reads the system clock itself (it takes no other). */
    @State(Scope.Thread)
    public static class GuavaLimiter {
        RateLimiter limiter;

        @Setup
        public void setUp() {
            limiter = RateLimiter.create(LIMIT / (double) WINDOW.toSeconds());
        }
    }

    @Benchmark
    public boolean guava(GuavaLimiter key) {
        return key.limiter.tryAcquire();
    }
}

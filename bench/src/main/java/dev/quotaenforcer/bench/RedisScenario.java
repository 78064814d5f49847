package dev.quotaenforcer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.streams.StreamsConfig;
import redis.clients.jedis.Jedis;

/**
 * Scenario 6: the alternative users pick, the classic Redis + Lua sliding window counter, on a
 * {@code redis-server} this scenario starts on loopback: decisions per second from concurrent
 * closed-loop clients, and latency at the latency scenario's offered loads, recorded the same way,
 * beside ours when that scenario ran too. Without {@code redis-server} it says so and measures nothing.
 */
public final class RedisScenario implements Scenario {

    static final String SKIPPED = "skipped: redis-server not found on PATH (install Debian's redis-server)";
    /** Closed-loop clients, each on its own connection: a gateway's connection pool. */
    static final int CLIENTS = 8;
    /** Connections the open-loop load is spread over; requests queue for them when all are busy. */
    static final int WORKERS = 16;
    /** The latency scenario's per-key limit, so nearly every request is allowed here too. */
    private static final long LIMIT = 1000;
    private static final long WINDOW_MS = 1000;
    private static final Duration DRAIN = Duration.ofSeconds(5);

    private final LatencyScenario ours;
    private final String path;

    /** @param ours the latency scenario of the same run, whose figures are put beside Redis' */
    public RedisScenario(LatencyScenario ours) {
        this(ours, System.getenv("PATH"));
    }

    /** @param path where to look for {@code redis-server}, as the PATH variable lists directories */
    RedisScenario(LatencyScenario ours, String path) {
        this.ours = ours;
        this.path = path;
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String description() {
        return "The classic Redis + Lua sliding window counter (EVALSHA through Jedis) on a redis-server started on "
                + "loopback: decisions per second with " + CLIENTS + " closed-loop clients, and p50, p99 and p99.9 at "
                + "the latency scenario's offered loads, open loop, beside the enforcer's.";
    }

    @Override
    public ScenarioResult run(BenchContext context) throws Exception {
        Optional<Path> executable = RedisServer.find(path);
        if (executable.isEmpty()) {
            context.progress().say(name(), SKIPPED);
            return ScenarioResult.builder(this, SKIPPED)
                    .note("Nothing was measured: without redis-server there is nothing to compare against, and this "
                            + "scenario never makes figures up. `apt-get install redis-server` and run it again.")
                    .build();
        }
        Duration warmup = context.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(3);
        Duration length = context.quick() ? Duration.ofSeconds(2) : Duration.ofSeconds(12);
        Path work = Files.createTempDirectory("quota-bench-redis");
        try (RedisServer server = RedisServer.start(executable.get(), work.resolve("redis-server.log"))) {
            String sha;
            String version;
            ScriptCheck.Checked checked;
            try (Jedis jedis = server.connect()) {
                version = jedis.info("server").lines().filter(line -> line.startsWith("redis_version:"))
                        .map(line -> line.substring("redis_version:".length()).trim()).findFirst().orElse("unknown");
                sha = SlidingWindowScript.register(jedis);
                checked = ScriptCheck.run(jedis, sha, "check", context.seed());
            }
            context.progress().say(name(), "redis-server " + version + " on port " + server.port() + "; the script allowed "
                    + checked.burstAllowed() + " of " + ScriptCheck.BURST + " against a limit of " + ScriptCheck.BURST_LIMIT
                    + " and decided " + checked.sequenceDecided() + " requests as the enforcer's counter does");
            SlidingWindowScript script = new SlidingWindowScript(LIMIT, WINDOW_MS);
            double closedLoop = closedLoop(server, script, sha, length, context.seed());
            context.progress().say(name(), CLIENTS + " closed-loop clients: " + Numbers.of(closedLoop) + " decisions/s");
            List<OpenLoop.Result> loads = new ArrayList<>();
            for (int load : LatencyScenario.LOADS) {
                OpenLoop.Result result = openLoop(server, script, sha, load, warmup, length, context.seed());
                context.progress().say(name(), "at " + load + "/s: p50 " + Numbers.of(result.latency().p50Ms()) + " ms, p99 "
                        + Numbers.of(result.latency().p99Ms()) + " ms, p99.9 " + Numbers.of(result.latency().p999Ms())
                        + " ms, " + Numbers.of(result.decidedPerSecond()) + " decided/s");
                loads.add(result);
            }
            return result(version, checked, closedLoop, loads, ours.measured(), warmup, length);
        } finally {
            deleteRecursively(work);
        }
    }

    /** Decisions per second of {@link #CLIENTS} threads each deciding on its own connection as fast as it can. */
    private static double closedLoop(RedisServer server, SlidingWindowScript script, String sha, Duration length,
                                     long seed) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            long end = System.nanoTime() + length.toNanos();
            List<Future<Long>> counts = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                SplittableRandom keys = new SplittableRandom(seed + c);
                counts.add(clients.submit(() -> {
                    long decided = 0;
                    try (Jedis jedis = server.connect()) {
                        while (System.nanoTime() < end) {
                            script.allow(jedis, sha, "key-" + keys.nextInt(LatencyScenario.KEYS),
                                    System.currentTimeMillis(), 1);
                            decided++;
                        }
                    }
                    return decided;
                }));
            }
            long decided = 0;
            for (Future<Long> count : counts) {
                decided += count.get();
            }
            return decided / (length.toNanos() / 1e9);
        } finally {
            clients.shutdownNow();
        }
    }

    /** The latency scenario's open loop, each request decided on one of {@link #WORKERS} connections. */
    private static OpenLoop.Result openLoop(RedisServer server, SlidingWindowScript script, String sha, int load,
                                            Duration warmup, Duration length, long seed) throws InterruptedException {
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
        ConcurrentLinkedQueue<Jedis> connections = new ConcurrentLinkedQueue<>();
        ThreadLocal<Jedis> connection = ThreadLocal.withInitial(() -> {
            Jedis jedis = server.connect();
            connections.add(jedis);
            return jedis;
        });
        SplittableRandom keys = new SplittableRandom(seed);
        try {
            return OpenLoop.run(load, warmup, length, DRAIN, i -> {
                String apiKey = "key-" + keys.nextInt(LatencyScenario.KEYS);
                return CompletableFuture.supplyAsync(() -> {
                    script.allow(connection.get(), sha, apiKey, System.currentTimeMillis(), 1);
                    return true;
                }, workers);
            });
        } finally {
            workers.shutdownNow();
            workers.awaitTermination(10, TimeUnit.SECONDS);
            connections.forEach(Jedis::close);
        }
    }

    ScenarioResult result(String version, ScriptCheck.Checked checked, double closedLoop, List<OpenLoop.Result> loads,
                          List<LatencyScenario.Measured> enforcer, Duration warmup, Duration length) {
        ScenarioResult.Builder result = ScenarioResult.builder(this, "the classic Redis + Lua limiter beside ours")
                .figure("checkBurstAllowed", checked.burstAllowed(), "requests")
                .figure("checkSequenceAgreed", checked.sequenceDecided(), "requests")
                .figure("closedLoopClients", CLIENTS, "clients")
                .figure("closedLoopPerSecond", closedLoop, "decisions/s");
        List<List<String>> rows = new ArrayList<>();
        List<Chart.Bar> p99 = new ArrayList<>();
        for (OpenLoop.Result load : loads) {
            long offered = (long) load.offeredPerSecond();
            LatencySummary latency = load.latency();
            result.figure(offered + ".p50Ms", latency.p50Ms(), "ms")
                    .figure(offered + ".p99Ms", latency.p99Ms(), "ms")
                    .figure(offered + ".p999Ms", latency.p999Ms(), "ms")
                    .figure(offered + ".maxMs", latency.maxMs(), "ms")
                    .figure(offered + ".decidedPerSecond", load.decidedPerSecond(), "decisions/s");
            rows.add(row("Redis + Lua", load));
            p99.add(new Chart.Bar("Redis + Lua @" + offered / 1000 + "k/s", latency.p99Ms(), 0));
            for (LatencyScenario.Measured ourRun : comparable(enforcer, offered)) {
                rows.add(row("enforcer, " + ourRun.label(), ourRun.result()));
                p99.add(new Chart.Bar("enforcer " + ourRun.series() + " @" + offered / 1000 + "k/s",
                        ourRun.result().latency().p99Ms(), 0));
                result.figure(offered + "." + ourRun.series() + ".p99OverRedis",
                        ourRun.result().latency().p99Ms() / latency.p99Ms(), "ratio");
            }
        }
        result.table(new Table("Open loop, " + length.toSeconds() + " s per load after " + warmup.toSeconds()
                + " s of warm-up, " + LatencyScenario.KEYS + " keys; Redis over " + WORKERS + " connections; milliseconds",
                List.of("limiter", "offered/s", "decided/s", "p50", "p99", "p99.9", "max"), rows));
        List<Chart.Bar> rates = new ArrayList<>();
        rates.add(new Chart.Bar("Redis + Lua, " + CLIENTS + " closed-loop clients", closedLoop, 0));
        enforcer.stream().filter(RedisScenario::enforcerDefault)
                .max(Comparator.comparingDouble(run -> run.result().decidedPerSecond()))
                .ifPresent(best -> {
                    result.figure("enforcerBestDecidedPerSecond", best.result().decidedPerSecond(), "decisions/s");
                    rates.add(new Chart.Bar("enforcer, sync client, " + best.label() + " @"
                            + (long) best.result().offeredPerSecond() / 1000 + "k/s", best.result().decidedPerSecond(), 0));
                });
        result.chart(new Chart("p99", "ms", p99));
        result.chart(new Chart("Decisions per second", "decisions/s", rates));
        result.note("redis-server " + version + " on loopback with persistence off, started by the scenario; the script is "
                + "the sliding window counter (bench/src/main/resources/bench/sliding-window-counter.lua), one EVALSHA per "
                + "request through Jedis. Before timing, it allowed " + checked.burstAllowed() + " of " + ScriptCheck.BURST
                + " requests against a limit of " + ScriptCheck.BURST_LIMIT + " and decided a seeded sequence of "
                + checked.sequenceDecided() + " requests (" + checked.sequenceAllowed() + " allowed) exactly as the "
                + "enforcer's sliding window counter does.");
        result.note(enforcer.isEmpty()
                ? "The enforcer's figures beside these need the latency scenario in the same run (--scenario latency,redis)."
                : "The enforcer's rows come from the latency scenario of this run, measured the same way at the same loads. "
                + "Not like for like in what is done per request: the enforcer also checks an hourly quota, writes the "
                + "decision, usage and changelog records, and under exactly-once commits them atomically; the script "
                + "counts one window in memory. Its decisions/s here is the most the synchronous client got decided "
                + "open loop; the throughput scenario measures the enforcer's ceiling on pre-produced requests.");
        return result.build();
    }

    /** The enforcer's runs at {@code offered}/s with default settings: exactly-once read uncommitted, and at-least-once. */
    private static List<LatencyScenario.Measured> comparable(List<LatencyScenario.Measured> enforcer, long offered) {
        return enforcer.stream().filter(RedisScenario::enforcerDefault)
                .filter(run -> (long) run.result().offeredPerSecond() == offered)
                .filter(run -> run.setup().guarantee().equals(StreamsConfig.AT_LEAST_ONCE)
                        || run.replies() == IsolationLevel.READ_UNCOMMITTED)
                .toList();
    }

    /** A latency row of the enforcer with its default settings: not the floor's, nor a tuning's. */
    private static boolean enforcerDefault(LatencyScenario.Measured run) {
        return run.setup().responder() == LatencyScenario.Responder.ENFORCER && !run.setup().tuning();
    }

    private static List<String> row(String limiter, OpenLoop.Result load) {
        LatencySummary latency = load.latency();
        return List.of(limiter, Numbers.of(load.offeredPerSecond()), Numbers.of(load.decidedPerSecond()),
                Numbers.of(latency.p50Ms()), Numbers.of(latency.p99Ms()), Numbers.of(latency.p999Ms()),
                Numbers.of(latency.maxMs()));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}

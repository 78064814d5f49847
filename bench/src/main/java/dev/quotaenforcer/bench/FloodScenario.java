package dev.quotaenforcer.bench;

import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.topology.QuotaTopology;
import dev.quotaenforcer.topology.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Scenario: a flood of random API keys against an enforcer with a default plan, run as its own process
 * as the state scenario runs it, to show that its memory stays bounded by the default plan's key cap.
 */
public final class FloodScenario implements Scenario {

    static final int PARTITIONS = 6;
    private static final String APPLICATION = "bench-flood";
    private static final String PLAN_ID = "flood";
    /** The state scenario's plan: each admitted key costs what a key costs there. */
    private static final String PLAN = """
            {"id": "flood",
             "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 100, "window": "PT1M"}],
             "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 1000, "window": "PT1H"}}""";
    /** Micrometer's name for the enforcer's quota.decisions counter in the Prometheus text. */
    private static final String DECISIONS_METRIC = "quota_decisions_total";
    private static final double MIB = 1024 * 1024;

    @Override
    public String name() {
        return "flood";
    }

    @Override
    public String description() {
        return "A request for each of many random API keys against an enforcer (a separate process) whose default "
                + "plan admits unassigned keys up to quota.default.plan.max.keys per task: decisions by reason, keys "
                + "held in state, and the process's resident memory and heap.";
    }

    /** What one run measured, before it becomes figures. */
    static final class Measured {
        final int requests;
        /** quota.default.plan.max.keys as the enforcer ran with it; 0 is no cap. */
        final int cap;
        double produceSeconds;
        double decideSeconds;
        Map<String, Double> decisionsByReason = Map.of();
        Map<String, Double> decisionsByPlan = Map.of();
        StateScenario.Changelog state;
        StateScenario.Changelog usage;
        StateScenario.Changelog requestIds;
        ProcessMemory.Resident idle;
        ProcessMemory.Resident loaded;
        ProcessMemory.Heap heapLoaded;
        long liveHeapIdle;
        long liveHeapLoaded;

        Measured(int requests, int cap) {
            this.requests = requests;
            this.cap = cap;
        }
    }

    @Override
    public ScenarioResult run(BenchContext context) throws Exception {
        int requests = context.quick() ? 50_000 : 2_000_000;
        // The user may --set the cap, as any setting the scenario leaves at its default.
        int cap = new EnforcerConfig(context.enforcerSettings()).defaultPlanMaxKeys();
        Path work = Files.createTempDirectory("quota-bench-flood");
        Files.createDirectories(context.outDir());
        try (EmbeddedKafka broker = EmbeddedKafka.start(work.resolve("kafka"), EmbeddedKafka.freePort(),
                EmbeddedKafka.freePort())) {
            Map<String, Object> cluster = Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            Topics topics = Topics.withPrefix(StateScenario.PREFIX);
            StateScenario.createTopicsAndPlan(cluster, topics, PARTITIONS, PLAN);
            return result(measure(context, cluster, topics, new Measured(requests, cap), work, broker.bootstrapServers()));
        } finally {
            ThroughputScenario.deleteRecursively(work);
        }
    }

    private Measured measure(BenchContext context, Map<String, Object> cluster, Topics topics, Measured measured,
                             Path work, String bootstrap) throws Exception {
        int httpPort = EmbeddedKafka.freePort();
        List<String> runArgs = StateScenario.runArgs(context, bootstrap, APPLICATION, PLAN_ID, work.resolve("state"),
                httpPort);
        try (ChildJvm enforcer = ChildJvm.enforcer(List.of(StateScenario.HEAP), runArgs,
                context.outDir().resolve("flood-enforcer.log"))) {
            enforcer.awaitLine(StateScenario.READY, StateScenario.TIMEOUT);
            context.progress().say(name(), "enforcer process " + enforcer.pid() + " ready in "
                    + Numbers.of(enforcer.secondsSinceStart()) + " s (" + StateScenario.HEAP + ", at most "
                    + measured.cap + " unassigned keys per task)");
            measured.idle = ProcessMemory.parseStatus(enforcer.procStatus());
            measured.liveHeapIdle = StateScenario.liveHeap(enforcer);
            long start = System.nanoTime();
            produce(cluster, topics.requests().name(), measured.requests, context.seed());
            measured.produceSeconds = (System.nanoTime() - start) / 1e9;
            context.progress().say(name(), "produced " + measured.requests + " requests, each of a new random key, in "
                    + Numbers.of(measured.produceSeconds) + " s");
            StateScenario.awaitCommitted(context, name(), cluster, APPLICATION, topics.requests().name(),
                    measured.requests, enforcer);
            measured.decideSeconds = (System.nanoTime() - start) / 1e9;
            measured.loaded = ProcessMemory.parseStatus(enforcer.procStatus());
            measured.heapLoaded = StateScenario.heapInfo(enforcer);
            String histogram = enforcer.jcmd("GC.class_histogram");
            measured.liveHeapLoaded = ProcessMemory.histogramTotal(histogram);
            // What holds the heap after the flood, for whoever asks what it kept.
            Files.writeString(context.outDir().resolve("flood-enforcer-heap.txt"), histogram, StandardCharsets.UTF_8);
            String metrics = StateScenario.metrics(httpPort);
            measured.decisionsByReason = PrometheusText.sumBy(metrics, DECISIONS_METRIC, "reason");
            measured.decisionsByPlan = PrometheusText.sumBy(metrics, DECISIONS_METRIC, "plan");
            context.progress().say(name(), "decided in " + Numbers.of(measured.decideSeconds) + " s: "
                    + measured.decisionsByReason + "; RSS " + Numbers.of(measured.loaded.rssBytes() / MIB) + " MiB");
            StateScenario.stopCleanly(enforcer);
        }
        measured.state = StateScenario.readKeyEntries(cluster, changelog(QuotaTopology.STATE_STORE), value -> 1,
                value -> value.length);
        measured.usage = StateScenario.readKeyEntries(cluster, changelog(QuotaTopology.STATE_STORE), QuotaTopology::usageHoursIn,
                value -> value.length);
        measured.requestIds = StateScenario.readChangelog(cluster, changelog(QuotaTopology.REQUEST_IDS_STORE),
                QuotaTopology::requestIdsIn);
        return measured;
    }

    private static String changelog(String store) {
        return APPLICATION + "-" + store + "-changelog";
    }

    /**
     * One request for each of {@code requests} random keys (UUIDs, seeded: the same seed floods with the
     * same keys), each with its own request id and stamped with the time it is sent, so none is late.
     */
    private static void produce(Map<String, Object> cluster, String topic, int requests, long seed) {
        Map<String, Object> settings = new HashMap<>(cluster);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        settings.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        SplittableRandom random = new SplittableRandom(seed);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < requests; i++) {
                String apiKey = new UUID(random.nextLong(), random.nextLong()).toString();
                String json = "{\"requestId\":\"r-" + i + "\",\"apiKey\":\"" + apiKey + "\",\"cost\":1,\"timestamp\":\""
                        + Instant.now() + "\"}";
                producer.send(new ProducerRecord<>(topic, apiKey.getBytes(StandardCharsets.UTF_8),
                        json.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    ScenarioResult result(Measured m) {
        long decisions = Math.round(m.decisionsByReason.values().stream().mapToDouble(Double::doubleValue).sum());
        if (decisions != m.requests) {
            throw new IllegalStateException("the enforcer made " + decisions + " decisions for " + m.requests + " requests");
        }
        long admitted = Math.round(m.decisionsByPlan.getOrDefault(PLAN_ID, 0.0));
        long refused = Math.round(m.decisionsByReason.getOrDefault(Reason.UNKNOWN_API_KEY.name(), 0.0));
        long capOfInstance = (long) m.cap * PARTITIONS;
        double rssPerKey = (double) (m.loaded.rssBytes() - m.idle.rssBytes()) / admitted;
        double liveHeapPerKey = (double) (m.liveHeapLoaded - m.liveHeapIdle) / admitted;
        ScenarioResult.Builder result = ScenarioResult.builder(this, "a flood of random API keys against the default plan's cap")
                .figure("requests", m.requests, "requests")
                .figure("capPerTask", m.cap, "keys")
                .figure("tasks", PARTITIONS, "tasks")
                .figure("admitted", admitted, "decisions")
                .figure("refusedUnknownApiKey", refused, "decisions")
                .figure("keysWithState", m.state.records(), "keys")
                .figure("keysWithUsage", m.usage.records(), "keys")
                .figure("rememberedRequestIds", m.requestIds.records(), "requests")
                .figure("produceSeconds", m.produceSeconds, "s")
                .figure("decideSeconds", m.decideSeconds, "s");
        StateScenario.memoryFigures(result, m.idle, m.loaded, m.heapLoaded, m.liveHeapLoaded)
                .figure("rssBytesPerAdmittedKey", rssPerKey, "bytes")
                .figure("liveHeapBytesPerAdmittedKey", liveHeapPerKey, "bytes");
        m.decisionsByReason.forEach((reason, count) -> result.figure("decisions." + reason, count, "decisions"));
        result.target(Target.atMost("peak RSS of the enforcer (" + StateScenario.HEAP + ") after " + m.requests
                + " random keys", m.loaded.peakBytes() / MIB, StateScenario.RSS_CEILING_BYTES / MIB, "MiB"));
        if (m.cap > 0) {
            result.target(Target.atMost("keys admitted under the default plan, at most the cap of " + m.cap + " x "
                    + PARTITIONS + " tasks", admitted, capOfInstance, "keys"));
        }
        List<List<String>> rows = new ArrayList<>();
        m.decisionsByReason.forEach((reason, count) -> rows.add(List.of(reason, Numbers.of(count),
                Numbers.percent(count / m.requests))));
        result.table(new Table("Decisions of " + m.requests + " requests, each of a new random key, by reason",
                List.of("reason", "decisions", "share"), rows));
        result.table(new Table("What the flood left (" + StateScenario.HEAP + ")", List.of("figure", "value"), List.of(
                List.of("keys admitted under the default plan (decisions)", Numbers.of(admitted)),
                List.of("keys with state (last entries in " + QuotaTopology.STATE_STORE + " changelog batches)", Numbers.of(m.state.records())),
                List.of("hourly usage figures (in the last entries of " + QuotaTopology.STATE_STORE + " changelog batches)",
                        Numbers.of(m.usage.records())),
                List.of("remembered request ids (in " + QuotaTopology.REQUEST_IDS_STORE + " changelog records)",
                        Numbers.of(m.requestIds.records())),
                List.of("RSS ready, before any request (MiB)", Numbers.of(m.idle.rssBytes() / MIB)),
                List.of("RSS with every request decided (MiB)", Numbers.of(m.loaded.rssBytes() / MIB)),
                List.of("peak RSS, VmHWM (MiB)", Numbers.of(m.loaded.peakBytes() / MIB)),
                List.of("heap used (committed) (MiB)", Numbers.of(m.heapLoaded.usedBytes() / MIB) + " ("
                        + Numbers.of(m.heapLoaded.committedBytes() / MIB) + ")"),
                List.of("heap reachable (before any request) (MiB)", Numbers.of(m.liveHeapLoaded / MIB) + " ("
                        + Numbers.of(m.liveHeapIdle / MIB) + ")"),
                List.of("RSS growth per admitted key (bytes)", Numbers.of(rssPerKey)),
                List.of("reachable heap growth per admitted key (bytes)", Numbers.of(liveHeapPerKey)))));
        result.chart(new Chart("RSS of the enforcer process", "MiB", List.of(
                new Chart.Bar("ready, no keys", m.idle.rssBytes() / MIB, 0),
                new Chart.Bar(m.requests + " random keys", m.loaded.rssBytes() / MIB, 0),
                new Chart.Bar("peak", m.loaded.peakBytes() / MIB, 0))));
        result.note("The enforcer ran as its own JVM (" + StateScenario.HEAP + " " + ChildJvm.HUGE_PAGES + " as the image runs it, the `run` command with its default "
                + "settings on this scenario's embedded broker, exactly-once, " + PARTITIONS + " partitions, so "
                + PARTITIONS + " tasks) with " + EnforcerConfig.DEFAULT_PLAN_CONFIG + "=" + PLAN_ID + " and "
                + EnforcerConfig.DEFAULT_PLAN_MAX_KEYS_CONFIG + "=" + m.cap + (m.cap == 0 ? " (no cap)" : " per task: "
                + "at most " + capOfInstance + " keys for the instance") + ". " + m.requests + " requests, each with a new "
                + "random API key and its own request id, were produced while it ran; memory is read from "
                + "/proc/<pid>/status and `jcmd` once its committed offsets covered every request. A refused key "
                + "leaves no state, usage or remembered id, so the figures per admitted key divide by the admitted keys. RSS "
                + "growth per key counts all the process grew by, the heap the JVM committed and RocksDB's cache filling "
                + "towards quota.rocksdb.memory.bytes among it, so it overstates a key's own cost when few keys are "
                + "admitted; the reachable heap (`jcmd GC.class_histogram`) grows by the remembered request ids (key entries are in RocksDB).");
        if (m.cap > 0 && refused == 0) {
            result.note("No task reached the cap with " + m.requests + " keys over " + PARTITIONS + " tasks, so this run "
                    + "refused none: the full run, or a smaller cap given with --set "
                    + EnforcerConfig.DEFAULT_PLAN_MAX_KEYS_CONFIG + "=N, shows the cap refusing.");
        }
        result.note("Nothing here is asserted on time: producing took " + Numbers.of(m.produceSeconds) + " s and "
                + "deciding every request " + Numbers.of(m.decideSeconds) + " s from the first one sent, for reading only.");
        return result.build();
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.bench.ShortJmhRun;
import dev.quotaenforcer.bench.ThroughputTrace;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.RunnerException;

/**
 * JMH benchmark of the enforcer's own work per decision, without Kafka's clients: the request intake
 * and the deciding processor of six tasks, as the topology builds them, on their RocksDB stores, fed
 * the throughput trace (2M requests over 100k keys) on one thread. Decisions and usage are written as
 * JSON, and commits and usage writes come as they would at 70,000 decisions/s. The throughput
 * scenario's figures include the broker and the shared machine's other tenants, which spread them
 * by more than most changes to this code move them; this measures that code alone, in ns per decision
 * of wall-clock time (JMH's figure) and of the thread's CPU time (printed after each iteration). The
 * heap is in transparent huge pages, as the image runs the enforcer.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(DecisionPathBenchmarks.REQUESTS)
@Warmup(iterations = 4)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "-XX:+UseTransparentHugePages"})
@State(Scope.Benchmark)
public class DecisionPathBenchmarks {

    static final int REQUESTS = 2_000_000;
    private static final int KEYS = 100_000;
    private static final int PARTITIONS = 6;
    private static final int DECISIONS_PER_SECOND = 70_000;
    /** Record timestamps as the broker stamps a trace produced at this rate, which the request ids' window counts in. */
    private static final int PRODUCED_PER_MS = 200;
    private static final String REQUESTS_TOPIC = "bench.requests";
    /**
     * Requests taken as one run, each task deciding its share of them in turn: a stream thread takes a
     * task's records in runs too, so what a task keeps of its last decisions (the plan's header text, say) is still there.
     */
    private static final int RUN = 600;
    /** The wall clock the run starts at: a run takes its own time as if deciding at that rate. */
    private static final long WALL_START = Instant.parse("2026-12-04T12:00:00Z").toEpochMilli();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Wall-clock milliseconds between commits: exactly-once's default, and at-least-once's. */
    @Param({"100", "30000"})
    public long commitIntervalMs;

    private final List<ThroughputTrace.Request> trace = new ArrayList<>(REQUESTS);
    private final int[] partitionOf = new int[REQUESTS];
    private EnforcerConfig config;
    private Topics topics;
    private Path stateDir;
    private DecisionStats stats;
    /** The thread CPU time the last iteration's trace took. */
    private long cpuNanos;
    private Task[] tasks;

    /**
     * One task: its intake and deciding processor, each in a context of its own, its stores, and when each
     * of its wall-clock punctuations is next due.
     */
    private record Task(MockProcessorContext<String, Object> intakeContext, Processor<String, byte[], String, Object> intake,
                        MockProcessorContext<String, Object> deciderContext, Processor<String, KeyInput, String, Object> decider,
                        List<StateStore> stores, Map<MockProcessorContext.CapturedPunctuator, Long> due) {
    }

    @Setup(Level.Trial)
    public void makeTrace() {
        ThroughputTrace requests = new ThroughputTrace(REQUESTS, KEYS, 20261204L, Instant.ofEpochMilli(WALL_START));
        KeyPlacement placement = new KeyPlacement(PARTITIONS);
        for (int i = 0; i < REQUESTS; i++) {
            ThroughputTrace.Request request = requests.next();
            trace.add(request);
            partitionOf[i] = placement.partitionOf(request.apiKey().getBytes(StandardCharsets.UTF_8));
        }
        Map<String, Object> settings = new HashMap<>();
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench-decision-path");
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        settings.put(EnforcerConfig.TOPIC_PREFIX_CONFIG, "bench");
        // What Enforcer sets from the requests topic's partitions as it starts.
        settings.put(EnforcerConfig.REQUEST_PARTITIONS_CONFIG, PARTITIONS);
        settings.put(EnforcerConfig.DEFAULT_PLAN_CONFIG, ThroughputTrace.PLAN_ID);
        settings.put(EnforcerConfig.REQUEST_MAX_LATENESS_MS_CONFIG, ThroughputTrace.LATENESS.toMillis());
        config = new EnforcerConfig(settings);
        topics = Topics.withPrefix(config.topicPrefix());
    }

    @Setup(Level.Iteration)
    public void startTasks() throws IOException {
        stateDir = Files.createTempDirectory("quota-bench-decision-path");
        stats = new DecisionStats();
        QuotaTopology topology = new QuotaTopology(config, stats, topic -> true);
        tasks = new Task[PARTITIONS];
        for (int partition = 0; partition < PARTITIONS; partition++) {
            tasks[partition] = task(topology, new TaskId(0, partition));
        }
    }

    private Task task(QuotaTopology topology, TaskId id) {
        Properties properties = new Properties();
        properties.putAll(config.streamsProperties());
        Path dir = stateDir.resolve(id.toString());
        MockProcessorContext<String, Object> intakeContext = new MockProcessorContext<>(properties, id, dir.toFile());
        MockProcessorContext<String, Object> deciderContext = new MockProcessorContext<>(properties, id, dir.toFile());
        var deciderSupplier = topology.quotaDecider(new CatalogChanges(), new CatalogChanges());
        List<StateStore> stores = new ArrayList<>();
        for (StoreBuilder<?> builder : deciderSupplier.stores()) {
            // No changelog (no producer here) and no record cache (no stream thread's cache): the stores beneath.
            stores.add(builder.withCachingDisabled().withLoggingDisabled().build());
        }
        TimestampedKeyValueStore<String, byte[]> plans = Stores.timestampedKeyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(QuotaTopology.PLAN_CATALOG_STORE), Serdes.String(), Serdes.ByteArray())
                .withLoggingDisabled().build();
        stores.add(plans);
        // The key catalog as the topology keeps it: every key of the trace is looked up in it, in vain.
        stores.add(QuotaTopology.keyCatalogStore().withLoggingDisabled().build());
        for (StateStore store : stores) {
            store.init(deciderContext.getStateStoreContext(), store);
            deciderContext.addStateStore(store);
        }
        plans.put(ThroughputTrace.PLAN_ID, ValueAndTimestamp.make(ThroughputTrace.PLAN.getBytes(StandardCharsets.UTF_8), 0));
        Processor<String, byte[], String, Object> intake = topology.requestIntake().get();
        intake.init(intakeContext);
        Processor<String, KeyInput, String, Object> decider = deciderSupplier.get();
        deciderContext.setCurrentSystemTimeMs(WALL_START);
        decider.init(deciderContext);
        return new Task(intakeContext, intake, deciderContext, decider, stores, new IdentityHashMap<>());
    }

    @TearDown(Level.Iteration)
    public void stopTasks() throws IOException {
        // Printed beside JMH's wall-clock figure: on a shared machine the thread's CPU time spreads less.
        System.out.printf("thread CPU: %.1f ns/decision%n", (double) cpuNanos / REQUESTS);
        for (Task task : tasks) {
            task.decider().close();
            task.stores().forEach(StateStore::close);
        }
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /** Decides the whole trace: reported per decision. */
    @Benchmark
    public long decideTrace() {
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        Serializer<Decision> decisions = topics.decisions().valueSerde().serializer();
        Serializer<KeyUsage> usage = topics.usage().valueSerde().serializer();
        long bytes = 0;
        long nextCommit = WALL_START + commitIntervalMs;
        for (int runStart = 0; runStart < REQUESTS; runStart += RUN) {
            long wall = WALL_START + (long) runStart * 1000 / DECISIONS_PER_SECOND;
            bytes += punctuate(wall, decisions, usage);
            if (wall >= nextCommit) {
                commit();
                nextCommit += commitIntervalMs;
            }
            int runEnd = Math.min(REQUESTS, runStart + RUN);
            for (int partition = 0; partition < PARTITIONS; partition++) {
                Task task = tasks[partition];
                for (int i = runStart; i < runEnd; i++) {
                    if (partitionOf[i] == partition) {
                        bytes += decide(task, i, decisions, usage);
                    }
                }
            }
        }
        commit();
        cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuStart;
        long decided = stats.decided();
        if (decided != REQUESTS) {
            throw new IllegalStateException("decided " + decided + " of " + REQUESTS + " requests");
        }
        return bytes;
    }

    /** Reads request {@code i} of the trace in its task, decides it and writes what that wrote. */
    private long decide(Task task, int i, Serializer<Decision> decisions, Serializer<KeyUsage> usage) {
        ThroughputTrace.Request request = trace.get(i);
        task.intakeContext().setRecordMetadata(REQUESTS_TOPIC, partitionOf[i], i);
        task.intake().process(new Record<>(request.apiKey(), request.json(), WALL_START + i / PRODUCED_PER_MS));
        for (var placed : task.intakeContext().forwarded()) {
            @SuppressWarnings("unchecked")
            Record<String, KeyInput> input = (Record<String, KeyInput>) (Record<?, ?>) placed.record();
            task.decider().process(input);
        }
        task.intakeContext().resetForwards();
        return written(task, decisions, usage);
    }

    /**
     * Runs each task's wall-clock punctuations that are due (the usage write at its phase), as Kafka Streams
     * would: every interval from when each was scheduled, missed intervals skipped. A punctuation is taken to
     * be scheduled at the first call that finds it: its task starts at {@link #WALL_START}, the first call's
     * time, and punctuators schedule others only as they run, here.
     */
    private long punctuate(long wall, Serializer<Decision> decisions, Serializer<KeyUsage> usage) {
        long bytes = 0;
        for (Task task : tasks) {
            task.deciderContext().setCurrentSystemTimeMs(wall);
            for (var punctuator : task.deciderContext().scheduledPunctuators()) {
                Long due = task.due().get(punctuator);
                if (due != null && wall >= due && !punctuator.cancelled()) {
                    long intervalMs = punctuator.getInterval().toMillis();
                    task.due().put(punctuator, due + ((wall - due) / intervalMs + 1) * intervalMs);
                    punctuator.getPunctuator().punctuate(wall);
                }
            }
            for (var punctuator : task.deciderContext().scheduledPunctuators()) {
                if (punctuator.getType() == PunctuationType.WALL_CLOCK_TIME) {
                    task.due().putIfAbsent(punctuator, wall + punctuator.getInterval().toMillis());
                }
            }
            bytes += written(task, decisions, usage);
        }
        return bytes;
    }

    /** What Kafka Streams asks of each store as it prepares a commit: the write-back stores write back. */
    private void commit() {
        for (Task task : tasks) {
            for (StateStore store : task.stores()) {
                if (store instanceof WriteBackStore<?, ?> writeBack) {
                    writeBack.flushCache();
                }
            }
        }
    }

    /** Serializes what the task's decider forwarded to the decisions and usage topics, as their sinks would. */
    private static long written(Task task, Serializer<Decision> decisions, Serializer<KeyUsage> usage) {
        long bytes = 0;
        for (var forward : task.deciderContext().forwarded()) {
            String child = forward.childName().orElse("");
            Object value = forward.record().value();
            if (child.equals(OutcomePublisher.DECISIONS)) {
                bytes += decisions.serialize(null, (Decision) value).length;
            } else if (child.equals(QuotaProcessor.KEY_USAGE)) {
                bytes += usage.serialize(null, (KeyUsage) value).length;
            }
        }
        task.deciderContext().resetForwards();
        return bytes;
    }

    public static void main(String[] args) throws RunnerException {
        ShortJmhRun.run(DecisionPathBenchmarks.class);
    }
}

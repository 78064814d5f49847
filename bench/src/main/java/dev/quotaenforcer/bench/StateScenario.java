package dev.quotaenforcer.bench;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.TopicApplier;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.engine.KeyStateCodec;
import dev.quotaenforcer.engine.QuotaEngine;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.topology.QuotaTopology;
import dev.quotaenforcer.topology.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Scenario 3: what each active key costs. An enforcer runs as a process of its own (the {@code run}
 * command, with a stated heap) against this scenario's broker and decides one request for each of
 * many keys; then its key states are measured in the changelog, on disk and in its resident memory,
 * it is stopped, its state directory wiped, and it is started again to time the restore.
 */
public final class StateScenario implements Scenario {

    /** The ceiling for the stored value of one key of a counter + hourly quota plan. */
    static final double VALUE_BYTES_CEILING = 32;
    /** The ceiling for the resident memory of an enforcer holding 1M active keys. */
    static final double RSS_CEILING_BYTES = 1024.0 * 1024 * 1024;
    /** The ceiling for restoring 1M keys from the changelog. */
    static final double RESTORE_CEILING_SECONDS = 30;
    static final int PARTITIONS = 6;
    /**
     * The enforcer's heap: the size the scenario has always run with, so figures compare across runs.
     * Key entries live in RocksDB, whose 128 MiB are outside the heap; with both the process stays
     * clear of the 1 GiB the issue allows.
     */
    static final String HEAP = "-Xmx512m";
    private static final String APPLICATION = "bench-state";
    static final String PREFIX = "bench";
    private static final String PLAN_ID = "state";
    private static final String PLAN = """
            {"id": "state",
             "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 100, "window": "PT1M"}],
             "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 1000, "window": "PT1H"}}""";
    static final String READY = "quota-enforcer ready";
    /** Only stops a hung run: a loaded machine may take many times longer than an idle one. */
    static final Duration TIMEOUT = Duration.ofMinutes(30);
    /** How far back the requests' event times reach: inside the enforcer's default lateness bound of 5 minutes. */
    /** The request rate and window the README states the memory of remembered request ids for. */
    private static final int DEDUP_RATE = 5_000;
    private static final long DEDUP_WINDOW_SECONDS =
            (Long) EnforcerConfig.definition().defaultValues().get(EnforcerConfig.DEDUP_WINDOW_MS_CONFIG) / 1000;
    private static final Duration EVENT_SPREAD = Duration.ofMinutes(4);
    private static final double MIB = 1024 * 1024;
    /** A JVM stopped by SIGTERM exits with 128 + 15 once its shutdown hooks (the enforcer's clean stop) have run. */
    private static final int EXIT_ON_SIGTERM = 143;

    @Override
    public String name() {
        return "state";
    }

    @Override
    public String description() {
        return "One request for each of many API keys (a sliding-window counter + hourly quota plan), decided by the "
                + "enforcer as a separate process: stored bytes per key (value, changelog, RocksDB on disk), the process's "
                + "resident memory, one expiry sweep of every key, and the restore of a wiped state directory.";
    }

    /** What one run measured, filled in as the run goes, before it becomes figures. */
    static final class Measured {
        final int keys;
        double decideSeconds;
        long decisions;
        double predictedValueBytes;
        Changelog state;
        Changelog requestIds;
        long stateLogBytes;
        long rocksDbBytes;
        ProcessMemory.Resident idle;
        ProcessMemory.Resident loaded;
        ProcessMemory.Heap heapLoaded;
        long liveHeapIdle;
        long liveHeapLoaded;
        List<EnforcerLogLines.Sweep> sweeps = List.of();
        double readySeconds;
        EnforcerLogLines.Restore restore;
        ProcessMemory.Resident restored;

        Measured(int keys) {
            this.keys = keys;
        }
    }

    /** Records of a changelog topic as read back: how many, and their key and value bytes. */
    /**
     * What a changelog holds: its records (or entries, when a record holds several), key and value
     * bytes, and of each value the part a function picks out (the whole value unless one is given).
     */
    record Changelog(long records, long keyBytes, long valueBytes, int maxValueBytes, long partBytes, int maxPartBytes) {

        double partBytesPerRecord() {
            return (double) partBytes / records;
        }

        double valueBytesPerRecord() {
            return (double) valueBytes / records;
        }

        double keyBytesPerRecord() {
            return (double) keyBytes / records;
        }
    }

    @Override
    public ScenarioResult run(BenchContext context) throws Exception {
        int keys = context.quick() ? 20_000 : 1_000_000;
        Path work = Files.createTempDirectory("quota-bench-state");
        Files.createDirectories(context.outDir());
        try (EmbeddedKafka broker = EmbeddedKafka.start(work.resolve("kafka"), EmbeddedKafka.freePort(),
                EmbeddedKafka.freePort())) {
            Map<String, Object> cluster = Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            Topics topics = Topics.withPrefix(PREFIX);
            Plan plan = createTopicsAndPlan(cluster, topics, PARTITIONS, PLAN);
            return result(measure(context, cluster, topics, plan, keys, work, broker.bootstrapServers()));
        } finally {
            ThroughputScenario.deleteRecursively(work);
        }
    }

    /** The bundled topics under {@link #PREFIX}, requests and commands in {@code partitions}, and the plan in the catalog. */
    static Plan createTopicsAndPlan(Map<String, Object> cluster, Topics topics, int partitions, String planJson)
            throws Exception {
        try (Admin admin = Admin.create(cluster)) {
            TopicApplier.apply(admin, TopicDefinitions.bundled().withPrefix(PREFIX)
                    .withPartitions(topics.requests().name(), partitions)
                    .withPartitions(topics.commands().name(), partitions));
        }
        return new CatalogClient(cluster, topics).putPlan(planJson.getBytes(StandardCharsets.UTF_8));
    }

    private Measured measure(BenchContext context, Map<String, Object> cluster, Topics topics, Plan plan, int keys,
                             Path work, String bootstrap) throws Exception {
        Path stateDir = work.resolve("state");
        Path logback = writeLogbackConfig(work);
        int httpPort = EmbeddedKafka.freePort();
        List<String> jvm = List.of(HEAP, "-Dlogback.configurationFile=" + logback);
        List<String> runArgs = runArgs(context, bootstrap, APPLICATION, PLAN_ID, stateDir, httpPort,
                // Every key is one the default plan takes: measured without the cap that sheds a flood of them.
                EnforcerConfig.DEFAULT_PLAN_MAX_KEYS_CONFIG + "=0");
        // Event times fill the minutes before now within this hour (the broker stamps the records, and the
        // enforcer decides nothing more than its lateness bound behind them): each key has one hourly window,
        // none expired by the end.
        Instant now = Instant.now();
        Instant from = Collections.max(List.of(now.truncatedTo(ChronoUnit.HOURS), now.minus(EVENT_SPREAD)));
        Measured measured = new Measured(keys);
        try (ChildJvm first = ChildJvm.enforcer(jvm, runArgs, context.outDir().resolve("state-enforcer.log"))) {
            first.awaitLine(READY, TIMEOUT);
            context.progress().say(name(), "enforcer process " + first.pid() + " ready in "
                    + Numbers.of(first.secondsSinceStart()) + " s (" + HEAP + ")");
            measured.idle = ProcessMemory.parseStatus(first.procStatus());
            measured.liveHeapIdle = liveHeap(first);
            long start = System.nanoTime();
            measured.predictedValueBytes = produce(cluster, topics.requests().name(), plan, keys, from, Duration.between(from, now));
            context.progress().say(name(), "produced " + keys + " requests, one per key, in "
                    + Numbers.of((System.nanoTime() - start) / 1e9) + " s");
            awaitCommitted(context, name(), cluster, APPLICATION, topics.requests().name(), keys, first);
            measured.decideSeconds = (System.nanoTime() - start) / 1e9;
            measured.loaded = ProcessMemory.parseStatus(first.procStatus());
            measured.heapLoaded = heapInfo(first);
            String histogram = first.jcmd("GC.class_histogram");
            measured.liveHeapLoaded = ProcessMemory.histogramTotal(histogram);
            // What holds the heap, by class, for whoever reads the report and asks why it is that big.
            Files.writeString(context.outDir().resolve("state-enforcer-heap.txt"), histogram, StandardCharsets.UTF_8);
            measured.decisions = decisions(httpPort);
            context.progress().say(name(), "decided in " + Numbers.of(measured.decideSeconds) + " s; RSS "
                    + Numbers.of(measured.loaded.rssBytes() / MIB) + " MiB");
            measured.sweeps = EnforcerLogLines.sweeps(first.lines());
            stopCleanly(first);
        }
        measured.state = readKeyEntries(cluster, APPLICATION + "-" + QuotaTopology.STATE_STORE + "-changelog", value -> 1,
                QuotaTopology::keyStateBytesIn);
        measured.requestIds = readChangelog(cluster, APPLICATION + "-" + QuotaTopology.REQUEST_IDS_STORE + "-changelog",
                QuotaTopology::requestIdsIn);
        measured.stateLogBytes = logBytes(cluster, APPLICATION + "-" + QuotaTopology.STATE_STORE + "-changelog");
        measured.rocksDbBytes = rocksDbBytes(stateDir, QuotaTopology.STATE_STORE);
        ThroughputScenario.deleteRecursively(stateDir);
        context.progress().say(name(), "stopped; state directory wiped; starting again to restore");
        try (ChildJvm second = ChildJvm.enforcer(jvm, runArgs,
                context.outDir().resolve("state-enforcer-restore.log"))) {
            second.awaitLine(READY, TIMEOUT);
            measured.readySeconds = second.secondsSinceStart();
            measured.restored = ProcessMemory.parseStatus(second.procStatus());
            measured.restore = EnforcerLogLines.lastRestoreOf(second.lines(), QuotaTopology.STATE_STORE).orElseThrow(
                    () -> new IllegalStateException("the restarted enforcer logged no restore of " + QuotaTopology.STATE_STORE));
            context.progress().say(name(), "ready again after " + Numbers.of(measured.readySeconds) + " s");
            second.stop(TIMEOUT);
        }
        return measured;
    }

    /**
     * The arguments after {@code run} for an enforcer on {@code bootstrap} under {@link #PREFIX} with a
     * default plan, its HTTP server on {@code httpPort}, then {@code settings} ({@code name=value}).
     */
    static List<String> runArgs(BenchContext context, String bootstrap, String application, String defaultPlan,
                                Path stateDir, int httpPort, String... settings) {
        List<String> args = new ArrayList<>();
        // The user's settings first: a later --set of the same name wins, and the scenario's own must.
        context.enforcerSettings().forEach((name, value) -> args.addAll(List.of("--set", name + "=" + value)));
        args.addAll(List.of("--bootstrap-servers", bootstrap,
                "--set", EnforcerConfig.TOPIC_PREFIX_CONFIG + "=" + PREFIX,
                "--set", EnforcerConfig.DEFAULT_PLAN_CONFIG + "=" + defaultPlan,
                "--set", StreamsConfig.APPLICATION_ID_CONFIG + "=" + application,
                "--set", StreamsConfig.STATE_DIR_CONFIG + "=" + stateDir,
                "--set", EnforcerConfig.HTTP_PORT_CONFIG + "=" + httpPort));
        for (String setting : settings) {
            args.addAll(List.of("--set", setting));
        }
        return args;
    }

    /** SIGTERM, and a failure unless the enforcer stopped as cleanly as an operator's stop would. */
    static void stopCleanly(ChildJvm enforcer) throws InterruptedException {
        int status = enforcer.stop(TIMEOUT);
        if (status != 0 && status != EXIT_ON_SIGTERM) {
            throw new IllegalStateException("the enforcer exited with status " + status + " on SIGTERM");
        }
    }

    /** The bundled logging, plus the expiry sweeps the processor logs at debug level. */
    private static Path writeLogbackConfig(Path work) throws IOException {
        String bundled;
        try (InputStream in = StateScenario.class.getResourceAsStream("/logback.xml")) {
            if (in == null) {
                throw new IllegalStateException("logback.xml is missing from the class path");
            }
            bundled = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String withSweeps = bundled.replace("<root ", "<logger name=\"dev.quotaenforcer.topology.QuotaProcessor\" level=\"DEBUG\"/>\n  <root ");
        Path file = work.resolve("logback.xml");
        Files.writeString(file, withSweeps, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * One request per key, key {@code i} at {@code i/keys} of the spread after {@code from}. Returns the
     * mean size the codec gives each key's state after its request, for comparison.
     */
    private static double produce(Map<String, Object> cluster, String topic, Plan plan, int keys, Instant from,
                                  Duration spread) {
        Map<String, Object> settings = new HashMap<>(cluster);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        settings.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        long spreadMs = spread.toMillis();
        long predictedBytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < keys; i++) {
                String apiKey = "key-" + i;
                long time = from.toEpochMilli() + i * spreadMs / keys;
                String json = "{\"requestId\":\"r-" + i + "\",\"apiKey\":\"" + apiKey + "\",\"cost\":1,\"timestamp\":\""
                        + Instant.ofEpochMilli(time) + "\"}";
                producer.send(new ProducerRecord<>(topic, apiKey.getBytes(StandardCharsets.UTF_8),
                        json.getBytes(StandardCharsets.UTF_8)));
                predictedBytes += KeyStateCodec.encode(QuotaEngine.evaluate(plan, null, time, 1).state()).length;
            }
            producer.flush();
        }
        return (double) predictedBytes / keys;
    }

    /** Waits until {@code application}'s committed offsets of {@code topic} cover {@code requests}, saying how far it got. */
    static void awaitCommitted(BenchContext context, String scenario, Map<String, Object> cluster, String application,
                               String topic, long requests, ChildJvm enforcer) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        long lastReport = System.nanoTime();
        try (Admin admin = Admin.create(cluster)) {
            while (true) {
                long done = ThroughputScenario.committed(admin, application, topic);
                if (done >= requests) {
                    return;
                }
                if (System.nanoTime() - lastReport > TimeUnit.SECONDS.toNanos(10)) {
                    context.progress().say(scenario, done + "/" + requests + " decided");
                    lastReport = System.nanoTime();
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the enforcer decided only " + done + " of " + requests + " within " + TIMEOUT);
                }
                enforcer.requireAlive();
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    static ProcessMemory.Heap heapInfo(ChildJvm enforcer) throws IOException, InterruptedException {
        return ProcessMemory.parseHeapInfo(enforcer.jcmd("GC.heap_info"));
    }

    /** Bytes of every object still reachable: jcmd's class histogram collects the garbage first. */
    static long liveHeap(ChildJvm enforcer) throws IOException, InterruptedException {
        return ProcessMemory.histogramTotal(enforcer.jcmd("GC.class_histogram"));
    }

    /** Decisions the enforcer counted, from its Prometheus metrics. */
    private static long decisions(int httpPort) throws IOException, InterruptedException {
        return Math.round(PrometheusText.sum(metrics(httpPort), "quota_decisions_total"));
    }

    /** The Prometheus text the enforcer's HTTP server on {@code httpPort} serves at {@code /metrics}. */
    static String metrics(int httpPort) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + httpPort + "/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * Every committed record of a changelog topic, from the start; key and value sizes summed.
     *
     * @param entriesOf how many entries a record's value holds: {@link Changelog#records} counts entries,
     *                  so the bytes per record are bytes per entry
     */
    static Changelog readChangelog(Map<String, Object> cluster, String topic, ToLongFunction<byte[]> entriesOf) {
        return readChangelog(cluster, topic, entriesOf, value -> value.length);
    }

    /** @param partOf the bytes of a value that {@link Changelog#partBytes} sums */
    static Changelog readChangelog(Map<String, Object> cluster, String topic, ToLongFunction<byte[]> entriesOf,
                                   ToIntFunction<byte[]> partOf) {
        Tally tally = new Tally(entriesOf, partOf);
        readAll(cluster, topic, record -> {
            if (record.value() != null) {
                tally.add(record.key(), record.value());
            }
        });
        return tally.changelog();
    }

    /**
     * The key entries the key-state store's changelog leaves, each key's last (a restore's outcome): its
     * records are batches of entries ({@link QuotaTopology#keyEntriesIn}), and a key may be in several, as
     * changed and as copied.
     */
    static Changelog readKeyEntries(Map<String, Object> cluster, String topic, ToLongFunction<byte[]> entriesOf,
                                    ToIntFunction<byte[]> partOf) {
        Map<ByteBuffer, byte[]> last = new HashMap<>();
        readAll(cluster, topic, record -> QuotaTopology.keyEntriesIn(record.key(), record.value()).forEach(entry -> {
            if (entry.value == null) {
                last.remove(ByteBuffer.wrap(entry.key));
            } else {
                last.put(ByteBuffer.wrap(entry.key), entry.value);
            }
        }));
        Tally tally = new Tally(entriesOf, partOf);
        last.forEach((key, value) -> tally.add(key.array(), value));
        return tally.changelog();
    }

    /** Hands every committed record of a topic, from the start, to {@code each}. */
    private static void readAll(Map<String, Object> cluster, String topic, Consumer<ConsumerRecord<byte[], byte[]>> each) {
        Map<String, Object> settings = new HashMap<>(cluster);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + TIMEOUT);
                }
                consumer.poll(Duration.ofMillis(500)).forEach(each);
            }
        }
    }

    /** Sums of the keys and values of a changelog's records or entries. */
    private static final class Tally {
        private final ToLongFunction<byte[]> entriesOf;
        private final ToIntFunction<byte[]> partOf;
        private long records;
        private long keyBytes;
        private long valueBytes;
        private int maxValue;
        private long partBytes;
        private int maxPart;

        Tally(ToLongFunction<byte[]> entriesOf, ToIntFunction<byte[]> partOf) {
            this.entriesOf = entriesOf;
            this.partOf = partOf;
        }

        void add(byte[] key, byte[] value) {
            records += entriesOf.applyAsLong(value);
            keyBytes += key.length;
            valueBytes += value.length;
            maxValue = Math.max(maxValue, value.length);
            int part = partOf.applyAsInt(value);
            partBytes += part;
            maxPart = Math.max(maxPart, part);
        }

        Changelog changelog() {
            return new Changelog(records, keyBytes, valueBytes, maxValue, partBytes, maxPart);
        }
    }

    /** Bytes of the topic's partitions in the broker's log directories, as the broker reports them. */
    private static long logBytes(Map<String, Object> cluster, String topic) throws Exception {
        try (Admin admin = Admin.create(cluster)) {
            return BrokerLogs.bytes(admin, List.of(topic)).getOrDefault(topic, 0L);
        }
    }

    /** Bytes of the store's RocksDB files in every task directory under the state directory. */
    static long rocksDbBytes(Path stateDir, String store) throws IOException {
        try (Stream<Path> paths = Files.walk(stateDir)) {
            long bytes = 0;
            for (Path path : paths.filter(Files::isRegularFile).toList()) {
                Path parent = path.getParent();
                if (parent != null && parent.getFileName().toString().equals(store)
                        && parent.getParent() != null && parent.getParent().getFileName().toString().equals("rocksdb")) {
                    bytes += Files.size(path);
                }
            }
            return bytes;
        }
    }

    ScenarioResult result(Measured m) {
        if (m.decisions != m.keys) {
            throw new IllegalStateException("the enforcer made " + m.decisions + " decisions for " + m.keys + " requests");
        }
        if (m.state.records() != m.keys) {
            throw new IllegalStateException("the state changelog holds " + m.state.records() + " records for "
                    + m.keys + " keys");
        }
        List<EnforcerLogLines.Sweep> lastSweeps = EnforcerLogLines.lastSweepPerTask(m.sweeps);
        long sweptKeys = lastSweeps.stream().mapToLong(EnforcerLogLines.Sweep::scanned).sum();
        long sweepMicros = lastSweeps.stream().mapToLong(EnforcerLogLines.Sweep::micros).sum();
        long sweptDeleted = lastSweeps.stream().mapToLong(EnforcerLogLines.Sweep::deleted).sum();
        long allSweepMicros = m.sweeps.stream().mapToLong(EnforcerLogLines.Sweep::micros).sum();
        double liveHeapPerKey = (double) (m.liveHeapLoaded - m.liveHeapIdle) / m.keys;
        double requestIdBytes = m.requestIds.records() == 0 ? 0
                : m.requestIds.keyBytesPerRecord() + m.requestIds.valueBytesPerRecord();
        double restoreSeconds = m.restore.millis() / 1000.0;
        ScenarioResult.Builder result = ScenarioResult.builder(this, "bytes, memory and restore time per active key")
                .figure("keys", m.keys, "keys")
                .figure("decisions", m.decisions, "decisions")
                .figure("decideSeconds", m.decideSeconds, "s")
                .figure("valueBytesPerKey", m.state.valueBytesPerRecord(), "bytes")
                .figure("maxValueBytes", m.state.maxValueBytes(), "bytes")
                .figure("stateValueBytesPerKey", m.state.partBytesPerRecord(), "bytes")
                .figure("maxStateValueBytes", m.state.maxPartBytes(), "bytes")
                .figure("usageValueBytesPerKey", m.state.valueBytesPerRecord() - m.state.partBytesPerRecord(), "bytes")
                .figure("codecValueBytesPerKey", m.predictedValueBytes, "bytes")
                .figure("keyBytesPerKey", m.state.keyBytesPerRecord(), "bytes")
                .figure("changelogBytesPerKey", (double) m.stateLogBytes / m.keys, "bytes")
                .figure("rocksDbBytesPerKey", (double) m.rocksDbBytes / m.keys, "bytes")
                .figure("requestIdBytesPerRequest", requestIdBytes, "bytes")
                .figure("requestIdBytesAt5kPerSecond", requestIdBytes * DEDUP_RATE * DEDUP_WINDOW_SECONDS, "bytes")
                .figure("liveHeapPerKey", liveHeapPerKey, "bytes");
        memoryFigures(result, m.idle, m.loaded, m.heapLoaded, m.liveHeapLoaded)
                .figure("rocksDbMemoryBoundBytes", EnforcerConfig.DEFAULT_ROCKSDB_MEMORY_BYTES, "bytes")
                .figure("sweepKeys", sweptKeys, "keys")
                .figure("sweepSeconds", sweepMicros / 1e6, "s")
                .figure("sweepNanosPerKey", sweptKeys == 0 ? 0 : sweepMicros * 1000.0 / sweptKeys, "ns")
                .figure("sweeps", m.sweeps.size(), "sweeps")
                .figure("allSweepsSeconds", allSweepMicros / 1e6, "s")
                .figure("readySeconds", m.readySeconds, "s")
                .figure("restoreSeconds", restoreSeconds, "s")
                .figure("restoredRecords", m.restore.records(), "records")
                .figure("rssRestoredBytes", m.restored.rssBytes(), "bytes");
        result.target(Target.atMost("largest stored limiter state of a key (counter + hourly quota)", m.state.maxPartBytes(),
                VALUE_BYTES_CEILING, "bytes"));
        result.target(Target.atMost("peak RSS of the enforcer with " + m.keys + " keys", m.loaded.peakBytes() / MIB,
                RSS_CEILING_BYTES / MIB, "MiB"));
        result.target(Target.atMost("restart with a wiped state directory until ready, " + m.keys + " keys",
                m.readySeconds, RESTORE_CEILING_SECONDS, "s"));
        result.table(new Table("Bytes per key (" + m.keys + " keys, one request each)", List.of("where", "bytes per key",
                "how measured"), List.of(
                row("key entry value (RocksDB, changelog)", m.state.valueBytesPerRecord(), "mean value size of the "
                        + m.state.records() + " keys' last entries in the committed changelog's batches; largest " + m.state.maxValueBytes()
                        + ": the limiter state and the open hour's usage figure"),
                row("of it, the limiter state", m.state.partBytesPerRecord(), "KeyStateCodec bytes inside each entry; largest "
                        + m.state.maxPartBytes()),
                row("of it, the hour's usage figure and framing", m.state.valueBytesPerRecord() - m.state.partBytesPerRecord(),
                        "plan, hour, quota, counts and write number as varints"),
                row("state value by the codec", m.predictedValueBytes, "KeyStateCodec on the engine's state after each "
                        + "key's request"),
                row("state key", m.state.keyBytesPerRecord(), "mean key size in the changelog's batches (\"key-N\")"),
                row("state changelog on the broker", (double) m.stateLogBytes / m.keys, "describeLogDirs size / keys: "
                        + "record batches, headers and transaction markers; batches of entries, and copies of them, nothing compacted yet"),
                row("state in RocksDB on disk", (double) m.rocksDbBytes / m.keys, "SST and other files of the "
                        + QuotaTopology.STATE_STORE + " stores after a clean stop / keys"),
                row("remembered request id (serialized, in heap and changelog)", requestIdBytes, "key + value of the "
                        + QuotaTopology.REQUEST_IDS_STORE + " changelog (API key and request id with the record time; the "
                        + "decision, DecisionCodec); at " + DEDUP_RATE + " requests/s over the default " + DEDUP_WINDOW_SECONDS
                        + " s window: " + Numbers.of(requestIdBytes * DEDUP_RATE * DEDUP_WINDOW_SECONDS / MIB) + " MiB"),
                row("live heap per key", liveHeapPerKey, "reachable heap (jcmd GC.class_histogram) with the keys minus before "
                        + "them: what fills with the first keys (client buffers, the "
                        + "write-back maps between commits) and the request ids"))));
        result.table(new Table("Enforcer process memory (" + HEAP + ", quota.rocksdb.memory.bytes "
                + Numbers.of(EnforcerConfig.DEFAULT_ROCKSDB_MEMORY_BYTES / MIB) + " MiB)", List.of("figure", "MiB"), List.of(
                List.of("RSS ready, before any key", Numbers.of(m.idle.rssBytes() / MIB)),
                List.of("RSS with every key decided", Numbers.of(m.loaded.rssBytes() / MIB)),
                List.of("peak RSS (VmHWM)", Numbers.of(m.loaded.peakBytes() / MIB)),
                List.of("heap committed", Numbers.of(m.heapLoaded.committedBytes() / MIB)),
                List.of("heap used", Numbers.of(m.heapLoaded.usedBytes() / MIB)),
                List.of("heap reachable (before any key)", Numbers.of(m.liveHeapLoaded / MIB) + " ("
                        + Numbers.of(m.liveHeapIdle / MIB) + ")"),
                List.of("metaspace committed", Numbers.of(m.heapLoaded.metaspaceCommittedBytes() / MIB)),
                List.of("RocksDB bound (block cache incl. memtables)", Numbers.of(EnforcerConfig.DEFAULT_ROCKSDB_MEMORY_BYTES / MIB)),
                List.of("RSS after restoring every key", Numbers.of(m.restored.rssBytes() / MIB)))));
        result.chart(new Chart("RSS of the enforcer process", "MiB", List.of(
                new Chart.Bar("ready, no keys", m.idle.rssBytes() / MIB, 0),
                new Chart.Bar(m.keys + " keys", m.loaded.rssBytes() / MIB, 0),
                new Chart.Bar("peak", m.loaded.peakBytes() / MIB, 0),
                new Chart.Bar("restored", m.restored.rssBytes() / MIB, 0))));
        result.note("The enforcer ran as its own JVM (" + HEAP + " " + ChildJvm.HUGE_PAGES + " as the image runs it, the `run` command on this scenario's embedded broker, "
                + "exactly-once, " + PARTITIONS + " partitions, one stream thread); memory is read from /proc/<pid>/status "
                + "and `jcmd GC.heap_info` (reachable heap: `GC.class_histogram`) once its committed offsets covered every request. Key entries (state and usage) "
                + "live in RocksDB; RocksDB's block cache and memtables are off-heap, bounded by "
                + "quota.rocksdb.memory.bytes; the rest of RSS is metaspace, code, thread stacks and malloc arenas.");
        result.note("Decided " + m.keys + " requests in " + Numbers.of(m.decideSeconds) + " s (produced while the "
                + "enforcer ran). Expiry: " + m.sweeps.size() + " sweeps took " + Numbers.of(allSweepMicros / 1e6)
                + " s in all; each task's last sweep, together one scan of " + sweptKeys + " keys, took "
                + Numbers.of(sweepMicros / 1e6) + " s and deleted " + sweptDeleted + " idle keys.");
        result.note("Restore: the enforcer was stopped with SIGTERM, its state directory deleted and the process started "
                + "again; it was ready (logged \"" + READY + "\") " + Numbers.of(m.readySeconds) + " s after its JVM "
                + "started. Kafka Streams restored " + m.restore.records() + " records (" + m.restore.recordsByStore()
                + ", " + m.restore.partitions() + " partitions) in " + Numbers.of(restoreSeconds) + " s from the first "
                + "restoring partition to the last, as the enforcer's restore listener logged it.");
        return result.build();
    }

    /** The enforcer process's memory before any key ({@code idle}) and once every request was decided. */
    static ScenarioResult.Builder memoryFigures(ScenarioResult.Builder result, ProcessMemory.Resident idle,
                                                ProcessMemory.Resident loaded, ProcessMemory.Heap heap, long liveHeap) {
        return result.figure("rssIdleBytes", idle.rssBytes(), "bytes")
                .figure("rssBytes", loaded.rssBytes(), "bytes")
                .figure("rssPeakBytes", loaded.peakBytes(), "bytes")
                .figure("heapCommittedBytes", heap.committedBytes(), "bytes")
                .figure("heapUsedBytes", heap.usedBytes(), "bytes")
                .figure("liveHeapBytes", liveHeap, "bytes")
                .figure("metaspaceCommittedBytes", heap.metaspaceCommittedBytes(), "bytes");
    }

    private static List<String> row(String where, double bytes, String how) {
        return List.of(where, Numbers.of(bytes), how);
    }
}

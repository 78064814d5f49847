package dev.quotaenforcer.bench;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.TopicApplier;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.runtime.Enforcer;
import dev.quotaenforcer.topology.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Scenario 1: decisions per second on pre-produced requests, beside a byte-copy Kafka Streams
 * application reading the same topic with the same partitions and guarantee on the same broker:
 * the ceiling of any Streams application here. Both are timed from RUNNING until their committed
 * offsets reach the end of the requests topic.
 */
public final class ThroughputScenario implements Scenario {

    /** The floor for the enforcer over the byte-copy ceiling, under either guarantee. */
    static final double CEILING_SHARE_FLOOR = 0.40;
    /** The most client CPU per decision, as a multiple of the byte-copy's per record, under either guarantee. */
    static final double CPU_RATIO_CEILING = 3.0;
    /** The most records written per decision under exactly-once: the decision plus what coalesces per key and commit. */
    static final double EXACTLY_ONCE_WRITTEN_CEILING = 1.4;
    /** The floor for decisions per second under exactly-once on this machine. */
    static final double EXACTLY_ONCE_FLOOR = 100_000;
    static final int PARTITIONS = 6;
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(8);
    /**
     * How many times a full run times the enforcer under each guarantee, each time followed by a byte-copy:
     * one pair of runs moved the exactly-once share of unchanged code from 0.396 to 0.524 in one day.
     */
    static final int FULL_ROUNDS = 2;
    private static final String BYTE_COPY = "byte-copy";
    private static final String ENFORCER = "enforcer";
    private static final String BYTE_COPY_AFTER = "byte-copy, after the enforcer";
    private static final String BYTE_COPY_TUNED = "byte-copy, enforcer's producer settings";

    /**
     * One measured run: an application's label (with its round after the first), its application id, its
     * guarantee, how long it took to do every input record, the
     * CPU its own threads (stream thread, producer, consumer) used meanwhile, what it appended to the
     * broker's topics and where its stream thread's time went.
     */
    record Run(String application, String applicationId, String guarantee, long records, double seconds, double cpuSeconds,
               Appended appended, Map<String, Double> profile, ThreadTimes times) {

        long written() {
            return appended.records().values().stream().mapToLong(Long::longValue).sum();
        }

        long bytesWritten() {
            return appended.bytes().values().stream().mapToLong(Long::longValue).sum();
        }

        double perSecond() {
            return records / seconds;
        }

        double cpuMicrosPerRecord() {
            return cpuSeconds * 1e6 / records;
        }

        /** Records appended to the broker's topics (outputs, changelogs, repartitions, transaction markers) per input record. */
        double writtenPerRecord() {
            return (double) written() / records;
        }

        /** Bytes the broker's logs of those topics grew by per input record: records, batch headers and markers. */
        double bytesPerRecord() {
            return (double) bytesWritten() / records;
        }
    }

    /**
     * What the broker's topics other than the input held at one moment, or gained since another, by
     * topic: records (end offsets) and bytes of their logs (as the broker reports its log directories),
     * Kafka's own internal topics aside.
     */
    record Appended(Map<String, Long> records, Map<String, Long> bytes) {

        static Appended besides(Admin admin, String input) throws Exception {
            List<String> topics = admin.listTopics().names().get().stream().filter(topic -> !topic.equals(input)).toList();
            return new Appended(written(admin, topics), BrokerLogs.bytes(admin, topics));
        }

        /**
         * Taken before the application starts, as the output's {@code before} is: it may copy or decide
         * records before {@link #time} sees it running.
         */
        static Appended besides(Map<String, Object> cluster, String input) throws Exception {
            try (Admin admin = Admin.create(cluster)) {
                return besides(admin, input);
            }
        }

        /** What each topic gained since {@code before}, for the topics that gained anything. */
        Appended since(Appended before) {
            return new Appended(gained(records, before.records), gained(bytes, before.bytes));
        }

        private static Map<String, Long> gained(Map<String, Long> now, Map<String, Long> before) {
            Map<String, Long> gained = new TreeMap<>();
            now.forEach((topic, count) -> {
                long added = count - before.getOrDefault(topic, 0L);
                if (added > 0) {
                    gained.put(topic, added);
                }
            });
            return gained;
        }
    }

    @Override
    public String name() {
        return "throughput";
    }

    @Override
    public String description() {
        return "Pre-produced request events over many API keys (a Zipf-like mix, the hottest keys over their limits), "
                + "decided by the enforcer and copied by a byte-copy Kafka Streams application with the same partitions "
                + "and guarantee: time until every input offset is committed, exactly-once and at-least-once.";
    }

    @Override
    public ScenarioResult run(BenchContext context) throws Exception {
        int events = context.quick() ? 100_000 : 2_000_000;
        int keys = context.quick() ? 10_000 : 100_000;
        Files.createDirectories(context.outDir());
        Path work = Files.createTempDirectory("quota-bench-throughput");
        List<Run> runs = new ArrayList<>();
        try (EmbeddedKafka broker = EmbeddedKafka.start(work.resolve("kafka"), EmbeddedKafka.freePort(),
                EmbeddedKafka.freePort())) {
            Map<String, Object> cluster = Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            Topics topics = Topics.withPrefix("bench");
            createTopics(cluster, topics);
            new CatalogClient(cluster, topics).putPlan(ThroughputTrace.PLAN.getBytes(StandardCharsets.UTF_8));
            context.progress().say(name(), "producing " + events + " requests over " + keys + " keys");
            long produceStart = System.nanoTime();
            produce(cluster, topics.requests().name(), events, new ThroughputTrace(events, keys, context.seed(), Instant.now()));
            context.progress().say(name(), "produced in " + Numbers.of((System.nanoTime() - produceStart) / 1e9) + " s");
            // Under both guarantees: a byte-copy after the enforcer, exactly-once, ran 1.6x to 2x as fast as the one before
            // it when only at-least-once was warmed up, the transactions' code being compiled in the first measured run.
            timeByteCopy(context, cluster, topics, StreamsConfig.AT_LEAST_ONCE, events, work, ByteCopy.WARM_UP, 1);
            timeByteCopy(context, cluster, topics, StreamsConfig.EXACTLY_ONCE_V2, events, work, ByteCopy.WARM_UP, 1);
            // The enforcer's own code is compiled in its first runs: without these, the compiler threads took 0.35 of a
            // core on average (up to a whole core in some seconds) of the two through the measured exactly-once run.
            timeEnforcer(context, cluster, topics, StreamsConfig.EXACTLY_ONCE_V2, events, work, 0);
            timeEnforcer(context, cluster, topics, StreamsConfig.AT_LEAST_ONCE, events, work, 0);
            int rounds = context.quick() ? 1 : FULL_ROUNDS;
            for (String guarantee : List.of(StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE)) {
                runs.add(timeByteCopy(context, cluster, topics, guarantee, events, work, ByteCopy.DEFAULTS, 1));
                runs.add(timeByteCopy(context, cluster, topics, guarantee, events, work, ByteCopy.TUNED, 1));
                for (int round = 1; round <= rounds; round++) {
                    runs.add(timeEnforcer(context, cluster, topics, guarantee, events, work, round));
                    runs.add(timeByteCopy(context, cluster, topics, guarantee, events, work, ByteCopy.AFTER, round));
                }
            }
        } finally {
            deleteRecursively(work);
        }
        return result(runs, events, keys);
    }

    private static void createTopics(Map<String, Object> cluster, Topics topics) throws Exception {
        try (Admin admin = Admin.create(cluster)) {
            TopicApplier.apply(admin, TopicDefinitions.bundled().withPrefix("bench")
                    .withPartitions(topics.requests().name(), PARTITIONS)
                    .withPartitions(topics.commands().name(), PARTITIONS));
            admin.createTopics(List.of(new NewTopic(copyTopic(StreamsConfig.EXACTLY_ONCE_V2), PARTITIONS, (short) 1),
                    new NewTopic(copyTopic(StreamsConfig.AT_LEAST_ONCE), PARTITIONS, (short) 1))).all().get();
        }
    }

    private static String copyTopic(String guarantee) {
        return "bench.copy-" + guarantee.replace('_', '-');
    }

    /** The trace's requests, keyed by API key (so each sits on its key's partition). */
    private static void produce(Map<String, Object> cluster, String topic, int events, ThroughputTrace trace) {
        Map<String, Object> settings = new HashMap<>(cluster);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        settings.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < events; i++) {
                ThroughputTrace.Request request = trace.next();
                producer.send(new ProducerRecord<>(topic, request.apiKey().getBytes(StandardCharsets.UTF_8), request.json()));
            }
            producer.flush();
        }
    }

    /** The byte-copy application's runs: each has an application id of its own, so none starts from another's offsets. */
    private enum ByteCopy {
        /** Not reported: the first application in this JVM pays for compiling Kafka's client and Streams code. */
        WARM_UP("byte-copy warm-up", "bench-copy-warm-up-"),
        /** On Kafka Streams' defaults: the ceiling the targets are set against, pooled with the {@link #AFTER} runs. */
        DEFAULTS(BYTE_COPY, "bench-copy-"),
        /** The same again after each enforcer run, so that a machine slowing or speeding up through the runs favours neither. */
        AFTER(BYTE_COPY_AFTER, "bench-copy-after-"),
        /** Given the producer settings the enforcer sets by default, which move the ceiling too. */
        TUNED(BYTE_COPY_TUNED, "bench-copy-tuned-");

        private final String label;
        private final String applicationPrefix;

        ByteCopy(String label, String applicationPrefix) {
            this.label = label;
            this.applicationPrefix = applicationPrefix;
        }
    }

    private Run timeByteCopy(BenchContext context, Map<String, Object> cluster, Topics topics, String guarantee,
                             long events, Path work, ByteCopy variant, int round) throws Exception {
        String application = applicationId(variant.applicationPrefix + roundPart(round), guarantee);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(topics.requests().name(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
                .to(copyTopic(guarantee), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        Properties properties = new Properties();
        properties.putAll(cluster);
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, application);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        properties.put(StreamsConfig.STATE_DIR_CONFIG, work.resolve(application).toString());
        if (variant == ByteCopy.TUNED) {
            EnforcerConfig.PRODUCER_DEFAULTS.forEach((name, value) -> properties.put(StreamsConfig.producerPrefix(name), value));
        }
        long before = written(cluster, copyTopic(guarantee));
        Appended writtenBefore = Appended.besides(cluster, topics.requests().name());
        try (KafkaStreams streams = new KafkaStreams(builder.build(), properties)) {
            streams.start();
            return time(context, cluster, label(variant.label, round), application, guarantee, events, topics.requests().name(),
                    copyTopic(guarantee), before, writtenBefore, () -> streams.state() == KafkaStreams.State.RUNNING,
                    streams::metrics);
        }
    }

    /** Round 0 is the enforcer's warm-up, unreported. */
    private Run timeEnforcer(BenchContext context, Map<String, Object> cluster, Topics topics, String guarantee,
                             long events, Path work, int round) throws Exception {
        boolean warmUp = round == 0;
        String application = applicationId(warmUp ? "bench-enforcer-warm-up-" : "bench-enforcer-" + roundPart(round), guarantee);
        Map<String, Object> settings = new HashMap<>(context.enforcerSettings());
        settings.putAll(cluster);
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, application);
        settings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee);
        settings.put(StreamsConfig.STATE_DIR_CONFIG, work.resolve(application).toString());
        settings.put(EnforcerConfig.TOPIC_PREFIX_CONFIG, "bench");
        settings.put(EnforcerConfig.DEFAULT_PLAN_CONFIG, ThroughputTrace.PLAN_ID);
        settings.put(EnforcerConfig.HTTP_PORT_CONFIG, -1);
        settings.put(EnforcerConfig.REQUEST_MAX_LATENESS_MS_CONFIG, ThroughputTrace.LATENESS.toMillis());
        // Every enforcer run writes the same decisions topic: each counts only what it adds.
        long before = written(cluster, topics.decisions().name());
        Appended writtenBefore = Appended.besides(cluster, topics.requests().name());
        try (Enforcer enforcer = Enforcer.start(settings)) {
            Run run = time(context, cluster, warmUp ? "enforcer warm-up" : label(ENFORCER, round), application, guarantee, events,
                    topics.requests().name(), topics.decisions().name(), before, writtenBefore,
                    () -> enforcer.streams().state() == KafkaStreams.State.RUNNING, () -> enforcer.streams().metrics());
            long decided = enforcer.stats().decided();
            if (decided != events) {
                throw new IllegalStateException("the enforcer made " + decided + " decisions for " + events + " requests");
            }
            return run;
        }
    }

    /** What a run's application id has of its round: nothing in the first. */
    private static String roundPart(int round) {
        return round == 1 ? "" : round + "-";
    }

    /** A run's label: an application's label, with its round after the first. */
    static String label(String application, int round) {
        return round == 1 ? application : application + ", run " + round;
    }

    /** The runs of an application under a guarantee, every round's, in the order they ran. */
    static List<Run> each(List<Run> runs, String application, String guarantee) {
        return runs.stream().filter(run -> run.guarantee().equals(guarantee) && (run.application().equals(application)
                || run.application().startsWith(application + ", run "))).toList();
    }

    /** An application id of its own per run and guarantee: no run starts from another's offsets. */
    private static String applicationId(String prefix, String guarantee) {
        return prefix + guarantee.replace('_', '-');
    }

    /**
     * Seconds from the application running until it has done every record. Under exactly-once that
     * is when its committed input offsets reach the end (offsets commit with the outputs); under
     * at-least-once, whose commits are 30 s apart by default, when its output holds a record for each
     * beyond the {@code before} it held when the application started.
     */
    private Run time(BenchContext context, Map<String, Object> cluster, String label, String application,
                     String guarantee, long events, String input, String output, long before, Appended writtenBefore,
                     BooleanSupplier running, Supplier<Map<MetricName, ? extends Metric>> metrics)
            throws Exception {
        long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
        while (!running.getAsBoolean()) {
            check(deadline, label + " did not start");
            TimeUnit.MILLISECONDS.sleep(10);
        }
        long start = System.nanoTime();
        long cpuStart = ThreadCpu.nanos(application);
        ThreadTimes timesStart = ThreadTimes.of(application, metrics);
        long lastReport = start;
        boolean exactlyOnce = guarantee.equals(StreamsConfig.EXACTLY_ONCE_V2);
        try (Admin admin = Admin.create(cluster);
             StreamThreadProfile profile = StreamThreadProfile.start(context.outDir().resolve("throughput-" + application + ".jfr"))) {
            while (true) {
                long done = exactlyOnce ? committed(admin, application, input) : written(admin, output) - before;
                long now = System.nanoTime();
                if (done >= events) {
                    Run run = new Run(label, application, guarantee, events, (now - start) / 1e9,
                            (ThreadCpu.nanos(application) - cpuStart) / 1e9, Appended.besides(admin, input).since(writtenBefore),
                            profile.shares(application), ThreadTimes.of(application, metrics).since(timesStart));
                    context.progress().say(name(), label + " " + guarantee + ": " + events + " in "
                            + Numbers.of(run.seconds()) + " s = " + Numbers.of(run.perSecond()) + "/s, "
                            + Numbers.of(run.cpuMicrosPerRecord()) + " µs of client CPU and "
                            + Numbers.of(run.writtenPerRecord()) + " records and " + Numbers.of(run.bytesPerRecord())
                            + " bytes written per record");
                    return run;
                }
                if (now - lastReport > TimeUnit.SECONDS.toNanos(5)) {
                    context.progress().say(name(), label + " " + guarantee + ": " + done + "/" + events + " done");
                    lastReport = now;
                }
                check(deadline, label + " " + guarantee + " did only " + done + " of " + events);
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    /** The input offsets the application committed, summed over the topic's partitions. */
    static long committed(Admin admin, String application, String topic) throws Exception {
        long committed = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> offset : admin.listConsumerGroupOffsets(application)
                .partitionsToOffsetAndMetadata().get().entrySet()) {
            if (offset.getKey().topic().equals(topic) && offset.getValue() != null) {
                committed += offset.getValue().offset();
            }
        }
        return committed;
    }

    private static long written(Map<String, Object> cluster, String topic) throws Exception {
        try (Admin admin = Admin.create(cluster)) {
            return written(admin, topic);
        }
    }

    /** Records written to a topic (its end offsets, summed), committed or not. */
    private static long written(Admin admin, String topic) throws Exception {
        return written(admin, List.of(topic)).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Records in each topic (end offsets, summed over its partitions). */
    private static Map<String, Long> written(Admin admin, List<String> topics) throws Exception {
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        admin.describeTopics(topics).allTopicNames().get().forEach((topic, description) -> description.partitions()
                .forEach(partition -> ends.put(new TopicPartition(topic, partition.partition()), OffsetSpec.latest())));
        Map<String, Long> written = new HashMap<>();
        for (Map.Entry<TopicPartition, ListOffsetsResultInfo> end : admin.listOffsets(ends).all().get().entrySet()) {
            written.merge(end.getKey().topic(), end.getValue().offset(), Long::sum);
        }
        return written;
    }

    private static void check(long deadline, String failure) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(failure + " within " + RUN_TIMEOUT);
        }
    }

    /** An application's runs under one guarantee as one: every record over all their time, CPU and writes. */
    record Pooled(double perSecond, double cpuMicrosPerRecord, double writtenPerRecord, double bytesPerRecord) {

        /** The ceiling under {@code guarantee}: its byte-copy runs before the enforcer and after each enforcer run, pooled. */
        static Pooled ceiling(List<Run> runs, String guarantee) {
            return of(copies(runs, guarantee));
        }

        static Pooled of(List<Run> runs) {
            long records = runs.stream().mapToLong(Run::records).sum();
            return new Pooled(records / runs.stream().mapToDouble(Run::seconds).sum(),
                    runs.stream().mapToDouble(Run::cpuSeconds).sum() * 1e6 / records,
                    (double) runs.stream().mapToLong(Run::written).sum() / records,
                    (double) runs.stream().mapToLong(Run::bytesWritten).sum() / records);
        }

        /** Records done per second of the application's own threads' CPU: what one core would do. */
        double perCoreSecond() {
            return 1e6 / cpuMicrosPerRecord;
        }
    }

    /** The byte-copy's runs on Kafka Streams' defaults under {@code guarantee}: before the enforcer, then after each of its runs. */
    private static List<Run> copies(List<Run> runs, String guarantee) {
        List<Run> copies = new ArrayList<>(each(runs, BYTE_COPY, guarantee));
        copies.addAll(each(runs, BYTE_COPY_AFTER, guarantee));
        return copies;
    }

    ScenarioResult result(List<Run> runs, int events, int keys) {
        ScenarioResult.Builder result = ScenarioResult.builder(this, "decisions per second against the byte-copy ceiling")
                .figure("events", events, "requests")
                .figure("keys", keys, "keys")
                .figure("partitions", PARTITIONS, "partitions");
        List<List<String>> rows = new ArrayList<>();
        List<List<String>> tunedRows = new ArrayList<>();
        List<Chart.Bar> bars = new ArrayList<>();
        for (String guarantee : List.of(StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE)) {
            Run copyBefore = find(runs, BYTE_COPY, guarantee);
            Pooled copyAfter = Pooled.of(each(runs, BYTE_COPY_AFTER, guarantee));
            Pooled copy = Pooled.ceiling(runs, guarantee);
            Run tunedCopy = find(runs, BYTE_COPY_TUNED, guarantee);
            List<Run> enforcerRuns = each(runs, ENFORCER, guarantee);
            Pooled enforcer = Pooled.of(enforcerRuns);
            double share = enforcer.perSecond() / copy.perSecond();
            double cpuRatio = enforcer.cpuMicrosPerRecord() / copy.cpuMicrosPerRecord();
            double tunedShare = enforcer.perSecond() / tunedCopy.perSecond();
            double tunedCpuRatio = enforcer.cpuMicrosPerRecord() / tunedCopy.cpuMicrosPerRecord();
            String id = guarantee.equals(StreamsConfig.EXACTLY_ONCE_V2) ? "exactlyOnce" : "atLeastOnce";
            result.figure(id + "TunedByteCopyPerSecond", tunedCopy.perSecond(), "records/s")
                    .figure(id + "TunedByteCopyCpuMicrosPerRecord", tunedCopy.cpuMicrosPerRecord(), "µs/record")
                    .figure(id + "ShareOfTunedCeiling", tunedShare, "share")
                    .figure(id + "TunedCpuRatio", tunedCpuRatio, "x");
            tunedRows.add(List.of(guarantee, Numbers.of(tunedCopy.perSecond()), Numbers.of(tunedCopy.cpuMicrosPerRecord()),
                    Numbers.percent(tunedShare), Numbers.of(tunedCpuRatio)));
            result.figure(id + "ByteCopyPerSecond", copy.perSecond(), "records/s")
                    .figure(id + "ByteCopyBeforePerSecond", copyBefore.perSecond(), "records/s")
                    .figure(id + "ByteCopyAfterPerSecond", copyAfter.perSecond(), "records/s")
                    .figure(id + "EnforcerPerSecond", enforcer.perSecond(), "decisions/s")
                    .figure(id + "ShareOfCeiling", share, "share")
                    .figure(id + "ByteCopyCpuMicrosPerRecord", copy.cpuMicrosPerRecord(), "µs/record")
                    .figure(id + "EnforcerCpuMicrosPerDecision", enforcer.cpuMicrosPerRecord(), "µs/decision")
                    .figure(id + "CpuRatio", cpuRatio, "x")
                    .figure(id + "EnforcerPerCoreSecond", enforcer.perCoreSecond(), "decisions/s per core")
                    .figure(id + "ByteCopyWrittenPerRecord", copy.writtenPerRecord(), "records/record")
                    .figure(id + "EnforcerWrittenPerDecision", enforcer.writtenPerRecord(), "records/decision")
                    .figure(id + "ByteCopyBytesPerRecord", copy.bytesPerRecord(), "bytes/record")
                    .figure(id + "EnforcerBytesPerDecision", enforcer.bytesPerRecord(), "bytes/decision");
            rows.add(List.of(guarantee, Numbers.of(copy.perSecond()), rates(copies(runs, guarantee)),
                    Numbers.of(enforcer.perSecond()), rates(enforcerRuns), Numbers.percent(share),
                    Numbers.of(copy.cpuMicrosPerRecord()), Numbers.of(enforcer.cpuMicrosPerRecord()), Numbers.of(cpuRatio),
                    Numbers.of(enforcer.perCoreSecond()), Numbers.of(copy.writtenPerRecord()),
                    Numbers.of(enforcer.writtenPerRecord())));
            bars.add(new Chart.Bar("byte-copy " + guarantee, copy.perSecond(), 0));
            bars.add(new Chart.Bar("byte-copy, enforcer's producer settings, " + guarantee, tunedCopy.perSecond(), 0));
            bars.add(new Chart.Bar("enforcer " + guarantee, enforcer.perSecond(), 0));
            result.target(Target.atLeast("enforcer share of the byte-copy ceiling, " + guarantee, share,
                    CEILING_SHARE_FLOOR, "share"));
            result.target(Target.atMost("enforcer client CPU per decision over the byte-copy's per record, " + guarantee,
                    cpuRatio, CPU_RATIO_CEILING, "x"));
            if (guarantee.equals(StreamsConfig.EXACTLY_ONCE_V2)) {
                result.target(Target.atMost("enforcer records written per decision, exactly-once", enforcer.writtenPerRecord(),
                        EXACTLY_ONCE_WRITTEN_CEILING, "records/decision"));
                result.target(Target.atLeast("enforcer decisions per second, exactly-once", enforcer.perSecond(),
                        EXACTLY_ONCE_FLOOR, "decisions/s"));
            }
        }
        result.table(new Table(events + " requests over " + keys + " keys, " + PARTITIONS + " partitions, one stream "
                + "thread, broker in the same process; under each guarantee the byte-copy ran before the enforcer and after "
                + "each of its runs, and each application's figures pool all its runs", List.of("guarantee",
                "byte-copy records/s", "byte-copy records/s, each run in order", "enforcer decisions/s",
                "enforcer decisions/s, each run", "enforcer / byte-copy", "byte-copy client CPU µs/record", "enforcer client CPU µs/decision",
                "CPU ratio", "enforcer decisions/s per core", "byte-copy records written/record",
                "enforcer records written/decision"), rows));
        result.table(new Table("Against the byte-copy given the producer settings the enforcer sets by default ("
                + producerDefaults() + "), which move the ceiling too; the targets are set against the byte-copy on Kafka "
                + "Streams' defaults", List.of("guarantee", "byte-copy records/s", "byte-copy client CPU µs/record",
                "enforcer / byte-copy", "CPU ratio"), tunedRows));
        result.table(writtenTable(runs));
        result.table(profileTable(runs));
        result.table(timeTable(runs));
        result.chart(new Chart("Throughput", "records/s", bars));
        result.note("Timed from the application reaching RUNNING until, under exactly-once, its committed offsets cover "
                + "every request (so the figure includes the last commit) and, under at-least-once, its output holds a "
                + "record per request. The enforcer also writes usage, plan usage, blocks and changelogs; the byte-copy "
                + "application one record per input. Client CPU is what the application's own threads used (not the "
                + "broker's): on a shared machine it varies less than the rates, so compare it between runs. Records "
                + "written counts what the run appended to every topic but the input (outputs, changelogs, repartition "
                + "topics, transaction markers), per input record: it moves with the load far less than the rates do (only "
                + "through how many decisions share a commit). Decisions/s per core is decisions per second of that client "
                + "CPU. The stream threads' JFR recordings are kept beside the report as throughput-<application>.jfr, and "
                + "async-profiler's stacks, where it ran, as throughput-<application>.collapsed. "
                + "Before the measured runs the byte-copy runs once under each guarantee, unreported, so that no measured run "
                + "pays for compiling Kafka's code: until 2026-12-03 the exactly-once byte-copy ran first and did, and until "
                + "2026-12-05 only at-least-once was warmed up, so the exactly-once byte-copy compiled the transactions' "
                + "code. Then the enforcer runs once under each guarantee, unreported, so that its measured runs do not "
                + "pay for compiling its own code either: until the fourth session of 2026-12-05 they did, while the JIT "
                + "compilers took 0.35 of a core on average (up to a whole core in some seconds), and one build's "
                + "exactly-once rate ranged from 27,307 to 72,042 "
                + "decisions/s between runs. Under each guarantee the byte-copy runs before the enforcer and again after "
                + "it, and the ceiling "
                + "pools both runs (every record over all their time and CPU): until 2026-12-05 it ran once, before, and a "
                + "single run's noise moved the exactly-once share between reports from 0.43 to 0.31 while the enforcer's "
                + "own rate moved 4%. Since 2026-12-07 a full run times the enforcer " + FULL_ROUNDS + " times under each "
                + "guarantee, each run followed by a byte-copy, and pools its runs as it pools the byte-copy's: one pair of "
                + "runs of unchanged code had moved the exactly-once share from 0.396 to 0.524 in one day.");
        return result.build();
    }

    /**
     * Records and bytes the enforcer's runs under each guarantee appended per decision, pooled, by topic (each
     * run's application id left out of Kafka Streams' own topic names), transaction markers included; below
     * them, the byte-copy's per record.
     */
    static Table writtenTable(List<Run> runs) {
        List<String> guarantees = runs.stream().filter(run -> run.application().equals(ENFORCER)).map(Run::guarantee).toList();
        Map<String, long[]> byTopic = new TreeMap<>();
        long[] decided = new long[guarantees.size()];
        for (int i = 0; i < guarantees.size(); i++) {
            for (Run run : each(runs, ENFORCER, guarantees.get(i))) {
                decided[i] += run.records();
                String application = run.applicationId() + "-";
                for (String topic : run.appended().records().keySet()) {
                    String name = topic.startsWith(application) ? topic.substring(application.length()) : topic;
                    long[] counts = byTopic.computeIfAbsent(name, n -> new long[2 * guarantees.size()]);
                    counts[2 * i] += run.appended().records().get(topic);
                    counts[2 * i + 1] += run.appended().bytes().getOrDefault(topic, 0L);
                }
            }
        }
        List<String> columns = new ArrayList<>(List.of("topic"));
        guarantees.forEach(guarantee -> columns.addAll(List.of(guarantee + " records", guarantee + " bytes")));
        List<List<String>> rows = new ArrayList<>();
        byTopic.forEach((topic, counts) -> {
            List<String> row = new ArrayList<>(List.of(topic));
            for (int i = 0; i < guarantees.size(); i++) {
                row.addAll(perRecord((double) counts[2 * i] / decided[i], (double) counts[2 * i + 1] / decided[i]));
            }
            rows.add(row);
        });
        List<String> all = new ArrayList<>(List.of("all topics"));
        List<String> copies = new ArrayList<>(List.of("the byte-copy's output, per record (all its runs pooled)"));
        for (String guarantee : guarantees) {
            Pooled enforcer = Pooled.of(each(runs, ENFORCER, guarantee));
            all.addAll(perRecord(enforcer.writtenPerRecord(), enforcer.bytesPerRecord()));
            Pooled copy = Pooled.ceiling(runs, guarantee);
            copies.addAll(perRecord(copy.writtenPerRecord(), copy.bytesPerRecord()));
        }
        rows.add(all);
        rows.add(copies);
        return new Table("Records and bytes the enforcer wrote per decision, by topic (records by end offsets, so "
                + "transaction markers count; bytes as the broker's logs grew: record batches with their headers, and the "
                + "markers), and the byte-copy's per record: what the broker in the same process stores and "
                + "acknowledges for each", columns, rows);
    }

    /** The cells of records and bytes written per input record. */
    private static String rates(List<Run> runs) {
        return runs.stream().map(run -> Numbers.of(run.perSecond())).collect(Collectors.joining(", "));
    }

    private static List<String> perRecord(double records, double bytes) {
        return List.of(String.format(Locale.ROOT, "%.3f", records), String.format(Locale.ROOT, "%.1f", bytes));
    }

    /** Each area's share of the stream thread's execution samples, per run, in the order of the enforcer's first run. */
    private static Table profileTable(List<Run> runs) {
        List<String> areas = new ArrayList<>();
        for (Run run : runs) {
            run.profile().keySet().stream().filter(area -> !area.isEmpty() && !areas.contains(area)).forEach(areas::add);
        }
        List<String> columns = new ArrayList<>(List.of("area"));
        runs.forEach(run -> columns.add(run.application() + " " + run.guarantee()));
        List<List<String>> rows = new ArrayList<>();
        for (String area : areas) {
            List<String> row = new ArrayList<>(List.of(area));
            runs.forEach(run -> row.add(String.format(Locale.ROOT, "%.1f%%", 100 * run.profile().getOrDefault(area, 0.0))));
            rows.add(row);
        }
        List<String> samples = new ArrayList<>(List.of("samples"));
        runs.forEach(run -> samples.add(Numbers.of(run.profile().getOrDefault("", 0.0))));
        rows.add(samples);
        return new Table("Where the stream thread's time goes: share of its samples by area of the code (a sample is "
                + "charged to the first Java frame from the top of its stack that belongs to an area; the JDK, Jackson and "
                + "Kafka's records, serializers and utilities are charged to their caller). The samples are "
                + StreamThreadProfile.sampler(), columns, rows);
    }

    /** Each run's stream thread's wall-clock time by what it did, and the CPU of the rest of the process. */
    static Table timeTable(List<Run> runs) {
        List<String> columns = new ArrayList<>(List.of("share of the run's wall-clock time"));
        runs.forEach(run -> columns.add(run.application() + " " + run.guarantee()));
        List<List<String>> rows = new ArrayList<>();
        rows.add(timeRow(runs, "stream thread running (its CPU)", run -> run.times().streamThreadCpuNanos()));
        rows.add(timeRow(runs, "stream thread blocked on Kafka", run -> run.times().blockedNanos()));
        rows.add(timeRow(runs, "... flushing its producer", run -> run.times().flushNanos()));
        rows.add(timeRow(runs, "... sending offsets to its transaction", run -> run.times().sendOffsetsNanos()));
        rows.add(timeRow(runs, "... committing its transaction", run -> run.times().commitNanos()));
        rows.add(timeRow(runs, "stream thread neither (waiting for records, or for a core)",
                run -> run.seconds() * 1e9 - run.times().streamThreadCpuNanos() - run.times().blockedNanos()));
        rows.add(timeRow(runs, "the application's other threads (producer, consumer), cores",
                run -> run.cpuSeconds() * 1e9 - run.times().streamThreadCpuNanos()));
        rows.add(timeRow(runs, "the JIT compilers, cores", run -> run.times().compilingNanos()));
        rows.add(timeRow(runs, "the rest of the process (broker, benchmark, collector), cores",
                run -> run.times().processCpuNanos() - run.cpuSeconds() * 1e9 - run.times().compilingNanos()));
        return new Table("What the stream thread did with each run's wall-clock time, as shares of it (Kafka's "
                + "cumulative blocked-time metrics; the last two rows are CPU, as cores busy on average)",
                columns, rows);
    }

    private static List<String> timeRow(List<Run> runs, String label, ToDoubleFunction<Run> nanos) {
        List<String> row = new ArrayList<>(List.of(label));
        runs.forEach(run -> row.add(String.format(Locale.ROOT, "%.1f%%", 100 * nanos.applyAsDouble(run) / (run.seconds() * 1e9))));
        return row;
    }

    private static String producerDefaults() {
        return EnforcerConfig.PRODUCER_DEFAULTS.entrySet().stream()
                .map(setting -> StreamsConfig.producerPrefix(setting.getKey()) + "=" + setting.getValue())
                .collect(Collectors.joining(", "));
    }

    private static Run find(List<Run> runs, String application, String guarantee) {
        return runs.stream().filter(r -> r.application().equals(application) && r.guarantee().equals(guarantee))
                .findFirst().orElseThrow();
    }

    static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}

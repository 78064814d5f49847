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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Scenario: what a restore from the changelogs reads after sustained traffic. An enforcer decides
 * requests at a steady rate under exactly-once; then a second instance with an empty state directory
 * (a crash under exactly-once, a new instance) restores and is timed to ready. Once with the
 * enforcer's settings for its batch changelogs, once with Kafka's (1 GiB or 7-day segments, a day of
 * tombstones), each on a broker of its own. Run only when named: a full run loads each for 11 minutes,
 * so that a 10-minute segment rolls and is cleaned.
 */
public final class RestoreScenario implements Scenario {

    /** The batch changelogs, after the application id. */
    static final List<String> CHANGELOGS = List.of("quota-state-changelog", "request-id-batches-changelog");
    /** Kafka's own topic settings, given for every internal topic, which the enforcer's batch changelogs replace. */
    static final Map<String, String> KAFKA_DEFAULTS = Map.of(
            StreamsConfig.topicPrefix(TopicConfig.SEGMENT_MS_CONFIG), "604800000",
            StreamsConfig.topicPrefix(TopicConfig.SEGMENT_BYTES_CONFIG), "1073741824",
            StreamsConfig.topicPrefix(TopicConfig.DELETE_RETENTION_MS_CONFIG), "86400000");
    private static final int KEYS = 100_000;
    private static final String PREFIX = "restore";
    private static final String APPLICATION_ID = "bench-restore";
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(10);
    /** After the last decision of a full run: the broker's log cleaner looks for work every 15 s. */
    private static final Duration CLEANER_TURN = Duration.ofSeconds(20);

    /** One way of running the enforcer: the prefix of its figures, a label and the settings it adds. */
    record Setup(String id, String label, Map<String, String> overrides) {
    }

    /** What one setup wrote and what its restore took: bytes and records per batch changelog, in {@link #CHANGELOGS} order. */
    record Measured(Setup setup, long decided, List<Long> bytes, List<Long> records, double readySeconds) {
    }

    static final List<Setup> SETUPS = List.of(
            new Setup("enforcerSettings", "the enforcer's batch changelog settings", Map.of()),
            new Setup("kafkaSettings", "Kafka's topic settings", KAFKA_DEFAULTS));

    @Override
    public String name() {
        return "restore";
    }

    @Override
    public String description() {
        return "An enforcer decides 5,000 requests/s over " + KEYS + " keys for 11 minutes, exactly-once; a second instance "
                + "with an empty state directory then restores from the changelogs and is timed to ready. With the enforcer's "
                + "settings for its batch changelogs and with Kafka's, each on a broker of its own. Run only when named.";
    }

    @Override
    public boolean inFullRun() {
        return false;
    }

    @Override
    public ScenarioResult run(BenchContext context) throws Exception {
        Duration load = context.quick() ? Duration.ofSeconds(15) : Duration.ofMinutes(11);
        int rate = context.quick() ? 1_000 : 5_000;
        List<Measured> measured = new ArrayList<>();
        Path work = Files.createTempDirectory("quota-bench-restore");
        try {
            for (Setup setup : SETUPS) {
                measured.add(measure(context, setup, work.resolve("setup-" + measured.size()), load, rate,
                        context.quick() ? Duration.ZERO : CLEANER_TURN));
            }
        } finally {
            ThroughputScenario.deleteRecursively(work);
        }
        return result(measured, load, rate);
    }

    private Measured measure(BenchContext context, Setup setup, Path work, Duration load, int rate, Duration cleanerTurn)
            throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start(work.resolve("broker"), EmbeddedKafka.freePort(), EmbeddedKafka.freePort())) {
            Map<String, Object> cluster = Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            Topics topics = Topics.withPrefix(PREFIX);
            try (Admin admin = Admin.create(cluster)) {
                TopicApplier.apply(admin, TopicDefinitions.bundled().withPrefix(PREFIX));
            }
            // The latency scenario's plan, whose limits nearly every request is within: what is measured is the state written.
            new CatalogClient(cluster, topics).putPlan(LatencyScenario.PLAN.getBytes(StandardCharsets.UTF_8));
            Map<String, Object> settings = new HashMap<>(context.enforcerSettings());
            settings.putAll(cluster);
            settings.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
            settings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            settings.put(EnforcerConfig.TOPIC_PREFIX_CONFIG, PREFIX);
            settings.put(EnforcerConfig.DEFAULT_PLAN_CONFIG, "bench");
            settings.put(EnforcerConfig.HTTP_PORT_CONFIG, -1);
            settings.putAll(setup.overrides());
            settings.put(StreamsConfig.STATE_DIR_CONFIG, work.resolve("state-1").toString());
            long sent;
            try (Enforcer first = start(settings)) {
                context.progress().say(name(), setup.label() + ": " + rate + " requests/s for " + load.toSeconds() + " s");
                sent = send(cluster, topics, load, rate, context.seed());
                awaitDecided(first, sent);
                TimeUnit.MILLISECONDS.sleep(cleanerTurn.toMillis());
            }
            List<Long> bytes = new ArrayList<>();
            List<Long> records = new ArrayList<>();
            for (String changelog : CHANGELOGS) {
                bytes.add(bytesOnDisk(work.resolve("broker"), APPLICATION_ID + "-" + changelog));
                records.add(records(cluster, APPLICATION_ID + "-" + changelog));
            }
            settings.put(StreamsConfig.STATE_DIR_CONFIG, work.resolve("state-2").toString());
            long start = System.nanoTime();
            try (Enforcer second = start(settings)) {
                double readySeconds = (System.nanoTime() - start) / 1e9;
                context.progress().say(name(), setup.label() + ": changelogs " + bytes + " bytes, " + records
                        + " records; ready after " + Numbers.of(readySeconds) + " s");
                return new Measured(setup, sent, bytes, records, readySeconds);
            }
        }
    }

    private static Enforcer start(Map<String, Object> settings) throws InterruptedException {
        Enforcer enforcer = Enforcer.start(settings);
        if (!enforcer.awaitReady(READY_TIMEOUT)) {
            enforcer.close();
            throw new IllegalStateException("the enforcer was not ready within " + READY_TIMEOUT);
        }
        return enforcer;
    }

    /** Sends requests of random keys at {@code rate} for {@code load}, as a gateway producing on the key's partition; how many. */
    private static long send(Map<String, Object> cluster, Topics topics, Duration load, int rate, long seed)
            throws InterruptedException {
        Map<String, Object> settings = new HashMap<>(cluster);
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        SplittableRandom keys = new SplittableRandom(seed);
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer())) {
            long start = System.nanoTime();
            long end = start + load.toNanos();
            for (long now = start; now < end; now = System.nanoTime()) {
                long due = start + sent * 1_000_000_000L / rate;
                if (now < due) {
                    TimeUnit.NANOSECONDS.sleep(due - now);
                    continue;
                }
                String apiKey = "key-" + keys.nextInt(KEYS);
                String json = "{\"requestId\": \"r-" + sent + "\", \"apiKey\": \"" + apiKey + "\", \"cost\": 1}";
                producer.send(new ProducerRecord<>(topics.requests().name(), apiKey.getBytes(StandardCharsets.UTF_8),
                        json.getBytes(StandardCharsets.UTF_8)));
                sent++;
            }
        }
        return sent;
    }

    private static void awaitDecided(Enforcer enforcer, long sent) throws InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (enforcer.stats().decided() < sent) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the enforcer did not decide all " + sent + " requests within " + READY_TIMEOUT);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /** The bytes of a topic's log segments in the broker's data directory. */
    static long bytesOnDisk(Path brokerDir, String topic) throws IOException {
        try (Stream<Path> files = Files.walk(brokerDir)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".log")
                            && file.getParent().getFileName().toString().matches(Pattern.quote(topic) + "-\\d+"))
                    .mapToLong(file -> file.toFile().length()).sum();
        }
    }

    /** The records a restore reads: every committed record of the topic, from its first offset to its last. */
    private static long records(Map<String, Object> cluster, String topic) {
        Map<String, Object> settings = new HashMap<>(cluster);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long records = 0;
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                records += consumer.poll(Duration.ofMillis(500)).count();
            }
            return records;
        }
    }

    ScenarioResult result(List<Measured> measured, Duration load, int rate) {
        ScenarioResult.Builder result = ScenarioResult.builder(this, "a restore from the changelogs after sustained traffic");
        List<List<String>> rows = new ArrayList<>();
        for (Measured m : measured) {
            String id = m.setup().id();
            List<String> row = new ArrayList<>(List.of(m.setup().label(), Long.toString(m.decided())));
            for (int i = 0; i < CHANGELOGS.size(); i++) {
                String changelog = CHANGELOGS.get(i);
                row.add(Numbers.of(m.bytes().get(i) / (1024.0 * 1024)));
                row.add(Long.toString(m.records().get(i)));
                result.figure(id + "." + changelog + ".MiB", m.bytes().get(i) / (1024.0 * 1024), "MiB");
                result.figure(id + "." + changelog + ".records", m.records().get(i), "records");
            }
            row.add(Numbers.of(m.readySeconds()));
            result.figure(id + ".readyAfterWipeSeconds", m.readySeconds(), "s");
            rows.add(row);
        }
        result.table(new Table("after " + load.toSeconds() + " s at " + rate + " requests/s over " + KEYS + " keys, exactly-once",
                List.of("setup", "decided", "quota-state changelog, MiB on disk", "its records", "request-id changelog, MiB on disk",
                        "its records", "second instance ready after, s"), rows));
        result.note("Each setup runs on an embedded broker of its own, its log cleaner at Kafka's defaults; the changelogs are "
                + "measured " + CLEANER_TURN.toSeconds() + " s after the last decision (at once in a quick run), once the first "
                + "instance has closed. "
                + "Records are what a read-committed consumer reads from each changelog's start, as a restore does. Kafka's "
                + "settings are given for every internal topic (" + String.join(", ", KAFKA_DEFAULTS.keySet().stream().sorted().toList())
                + "). Ready counts from the second instance's start, its JVM already warm.");
        return result.build();
    }
}

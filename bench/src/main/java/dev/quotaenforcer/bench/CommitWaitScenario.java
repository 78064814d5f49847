package dev.quotaenforcer.bench;

import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.config.EnforcerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Scenario: how long the first record a transactional producer sends after a commit waits for the
 * broker, at the broker's retry back-off the embedded broker sets and at Kafka's default. Under
 * transactions v2 the broker adds a partition to the new transaction when that record arrives, and
 * while the commit's markers are still being written it retries after
 * {@code add.partitions.to.txn.retry.backoff.ms}, holding the record: a wait every exactly-once
 * Kafka Streams application meets after its commits.
 */
public final class CommitWaitScenario implements Scenario {

    /** Kafka's own value of the broker setting, measured beside the embedded broker's. */
    static final int KAFKA_DEFAULT_BACKOFF_MS = 20;
    /** About as many partitions as one of the enforcer's transactions writes at 5k/s: decisions, changelogs, replies, usage. */
    static final int PARTITIONS = 24;
    /** Sent at once, and after the enforcer's producer linger, when its first decision after a commit goes out. */
    static final List<Integer> DELAYS_MS = List.of(0, EnforcerConfig.PRODUCER_LINGER_MS);
    private static final String TOPIC = "commit-wait";
    private static final int WARMUP_COMMITS = 20;
    private static final byte[] VALUE = new byte[100];
    private static final long TIMEOUT_SECONDS = 30;

    @Override
    public String name() {
        return "commit-wait";
    }

    @Override
    public String description() {
        return "A transactional producer writes one record to each of " + PARTITIONS + " partitions and commits, then "
                + "times one record's acknowledgement, sent at once or " + EnforcerConfig.PRODUCER_LINGER_MS + " ms after the "
                + "commit: on a broker retrying to add a partition to a completing transaction after "
                + EmbeddedKafka.ADD_PARTITIONS_RETRY_BACKOFF_MS + " ms (the embedded broker's setting) and after "
                + KAFKA_DEFAULT_BACKOFF_MS + " ms (Kafka's), each measured twice, in turns.";
    }

    /** One broker setting and delay: the first records' acknowledgement times, in microseconds. */
    record Measured(int backoffMs, int delayMs, Histogram micros) {
    }

    @Override
    public ScenarioResult run(BenchContext context) throws Exception {
        int commits = context.quick() ? 40 : 300;
        Map<String, Measured> measured = new LinkedHashMap<>();
        // Turns in the order A, B, B, A, so that a machine slowing down through the run weighs on both alike.
        List<Integer> turns = List.of(EmbeddedKafka.ADD_PARTITIONS_RETRY_BACKOFF_MS, KAFKA_DEFAULT_BACKOFF_MS,
                KAFKA_DEFAULT_BACKOFF_MS, EmbeddedKafka.ADD_PARTITIONS_RETRY_BACKOFF_MS);
        Path work = Files.createTempDirectory("quota-bench-commit-wait");
        try {
            for (int turn = 0; turn < turns.size(); turn++) {
                int backoffMs = turns.get(turn);
                Path dir = work.resolve("turn-" + turn);
                int port = EmbeddedKafka.freePort();
                Properties props = EmbeddedKafka.serverProperties(dir, port, EmbeddedKafka.freePort());
                props.put(EmbeddedKafka.ADD_PARTITIONS_RETRY_BACKOFF_MS_CONFIG, Integer.toString(backoffMs));
                Map<String, Object> client = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port);
                try (EmbeddedKafka broker = EmbeddedKafka.start(dir, props, List.of(), client);
                     Admin admin = Admin.create(client)) {
                    admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all()
                            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    for (int delayMs : DELAYS_MS) {
                        Histogram micros = measure(broker.bootstrapServers(), TOPIC + "-" + delayMs, delayMs, commits);
                        measured.computeIfAbsent(backoffMs + "/" + delayMs,
                                key -> new Measured(backoffMs, delayMs, new Histogram(3))).micros().add(micros);
                        context.progress().say(name(), "turn " + (turn + 1) + " of " + turns.size() + ", broker back-off "
                                + backoffMs + " ms, sent " + delayMs + " ms after the commit: p50 "
                                + Numbers.of(ms(micros, 50)) + " ms, p99 " + Numbers.of(ms(micros, 99)) + " ms");
                    }
                }
            }
        } finally {
            ThroughputScenario.deleteRecursively(work);
        }
        return result(new ArrayList<>(measured.values()), commits);
    }

    /** Commits {@code commits} transactions of a record per partition, timing the first record after each. */
    private static Histogram measure(String bootstrap, String transactionalId, int delayMs, int commits) throws Exception {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        settings.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, EnforcerConfig.PRODUCER_RETRY_BACKOFF_MS);
        Histogram micros = new Histogram(3);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            for (int i = 0; i < WARMUP_COMMITS + commits; i++) {
                producer.beginTransaction();
                for (int partition = 0; partition < PARTITIONS; partition++) {
                    producer.send(new ProducerRecord<>(TOPIC, partition, null, VALUE));
                }
                producer.commitTransaction();
                if (delayMs > 0) {
                    TimeUnit.MILLISECONDS.sleep(delayMs);
                }
                producer.beginTransaction();
                long sent = System.nanoTime();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, VALUE)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                long acknowledged = System.nanoTime();
                producer.commitTransaction();
                if (i >= WARMUP_COMMITS) {
                    micros.recordValue(TimeUnit.NANOSECONDS.toMicros(acknowledged - sent));
                }
            }
        }
        return micros;
    }

    ScenarioResult result(List<Measured> measured, int commits) {
        ScenarioResult.Builder result = ScenarioResult.builder(this,
                "the first record after a commit, at the broker's retry back-off");
        List<List<String>> rows = new ArrayList<>();
        for (Measured m : measured) {
            String id = "backoff" + m.backoffMs() + "ms.sentAfter" + m.delayMs() + "ms";
            rows.add(List.of(m.backoffMs() + (m.backoffMs() == KAFKA_DEFAULT_BACKOFF_MS ? " (Kafka's default)" : " (embedded broker)"),
                    Integer.toString(m.delayMs()), Long.toString(m.micros().getTotalCount()), Numbers.of(ms(m.micros(), 50)),
                    Numbers.of(ms(m.micros(), 90)), Numbers.of(ms(m.micros(), 99)), Numbers.of(m.micros().getMaxValue() / 1000.0)));
            result.figure(id + ".p50Ms", ms(m.micros(), 50), "ms");
            result.figure(id + ".p99Ms", ms(m.micros(), 99), "ms");
        }
        result.table(new Table("acknowledgement of the first record after a commit, milliseconds",
                List.of("broker's add.partitions.to.txn.retry.backoff.ms", "sent after the commit, ms", "records",
                        "p50", "p90", "p99", "max"), rows));
        result.note("Each broker is a single node of this machine, started for its turn with the embedded broker's settings "
                + "but for the back-off; " + commits + " commits per row and turn after " + WARMUP_COMMITS + " unmeasured, "
                + "and both turns of a row pooled. The producer sends with no linger and Kafka's acknowledgement of all "
                + "replicas. The enforcer's first decisions after each commit, and its changelog's first record, go out after its "
                + EnforcerConfig.PRODUCER_LINGER_MS + " ms linger and meet this wait when the commit's markers take longer than "
                + "that; at 5k/s a 100 ms commit interval puts a commit's first 5 ms at about 5% of its decisions.");
        return result.build();
    }

    private static double ms(Histogram micros, double percentile) {
        return micros.getValueAtPercentile(percentile) / 1000.0;
    }
}

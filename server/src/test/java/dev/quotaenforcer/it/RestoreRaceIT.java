package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.broker.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A minimal Kafka Streams application (a count per key, exactly-once v2) handing its one task from
 * one instance to another while the transaction markers of the first instance's last commit are
 * held back (the broker's marker thread suspended): a suspect for the fault suite's open question
 * was that the new owner would restore the changelog only up to its last stable offset, without
 * that transaction, and then resume from the input offsets the transaction committed. It does not:
 * the restore waits for the changelog's end, past the held transaction, so the count goes on.
 */
class RestoreRaceIT {

    private static final String IN = "race-in";
    private static final String OUT = "race-out";
    private static final String APP = "race-app";

    @Test
    @SuppressWarnings("removal")
    void aTaskHandedOverBeforeItsLastCommitsMarkersLandCountsOnFromTheFullCommittedCount(@TempDir Path work)
            throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start(work.resolve("broker"), EmbeddedKafka.freePort(),
                EmbeddedKafka.freePort());
             Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(IN, 1, (short) 1), new NewTopic(OUT, 1, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
            AtomicLong restoredY = new AtomicLong();
            KafkaStreams x = start(broker, "x", work.resolve("x"), new AtomicLong());
            KafkaStreams y = null;
            Thread markers = null;
            try {
                send(broker, 10);
                awaitCount(broker, 10);
                KafkaStreams yStarted = start(broker, "y", work.resolve("y"), restoredY);
                y = yStarted;
                markers = markerSender();
                markers.suspend();
                send(broker, 5);
                // x processes the five and commits: the coordinator logs the commit, its markers wait.
                TestCluster.awaitCondition("x's last commit logged, its markers pending", () -> prepareCommit(admin),
                        Duration.ofSeconds(30));
                x.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                        .withTimeout(Duration.ofSeconds(30)));
                // y has every committed record of the changelog: a restore ending at the last stable offset ends here.
                TestCluster.awaitCondition("y restored the ten committed counts", () -> restoredY.get() >= 10,
                        Duration.ofSeconds(60));
                markers.resume();
                markers = null;
                TestCluster.awaitCondition("y running", () -> yStarted.state() == KafkaStreams.State.RUNNING,
                        Duration.ofSeconds(60));
                send(broker, 1);
                assertEquals(16, awaitCount(broker, 16), "the count y writes after taking the task over");
            } finally {
                if (markers != null) {
                    markers.resume();
                }
                x.close(Duration.ofSeconds(30));
                if (y != null) {
                    y.close(Duration.ofSeconds(30));
                }
            }
        }
    }

    private static boolean prepareCommit(Admin admin) {
        try {
            for (TransactionListing listing : admin.listTransactions().all().get(10, TimeUnit.SECONDS)) {
                if (listing.transactionalId().startsWith(APP) && listing.state() == TransactionState.PREPARE_COMMIT) {
                    return true;
                }
            }
            return false;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The broker's thread that writes transaction markers to the partitions of a completed transaction. */
    private static Thread markerSender() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("TxnMarkerSenderThread-"))
                .findFirst().orElseThrow(() -> new AssertionError("no TxnMarkerSenderThread in this JVM"));
    }

    /** Starts an instance; {@code restored} counts the changelog records it restores. */
    private static KafkaStreams start(EmbeddedKafka broker, String name, Path stateDir, AtomicLong restored)
            throws InterruptedException {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(IN, Consumed.with(Serdes.String(), Serdes.String())).groupByKey()
                .count(Materialized.as("counts")).toStream().to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.CLIENT_ID_CONFIG, APP + "-" + name);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEnd, long records) {
                restored.addAndGet(records);
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long total) {
            }
        });
        streams.start();
        return streams;
    }

    private static void send(EmbeddedKafka broker, int records) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                broker.bootstrapServers(), "acks", "all"), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(IN, "k", "v"));
            }
        }
    }

    /** Waits until the committed output has {@code records} counts and returns the last. */
    private static long awaitCount(EmbeddedKafka broker, int records) {
        Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", broker.bootstrapServers());
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<Long> counts = new ArrayList<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(settings, new StringDeserializer(),
                new LongDeserializer())) {
            TopicPartition out = new TopicPartition(OUT, 0);
            consumer.assign(List.of(out));
            consumer.seekToBeginning(List.of(out));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (counts.size() < records && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    counts.add(record.value());
                }
            }
        }
        if (counts.size() < records) {
            throw new AssertionError("only " + counts.size() + " of " + records + " counts committed: " + counts);
        }
        return counts.get(counts.size() - 1);
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Two instances of one application share the requests partitions and decide exactly as one instance would. */
@ExtendWith(KafkaBroker.class)
class ScaleOutIT {

    private static final int PARTITIONS = 6;
    private static final int KEYS = 20;
    private static final int PER_KEY = 30;
    private static final int LIMIT = 12;
    private static final Instant HOUR = Instant.parse("2026-01-05T12:00:00Z");

    @Test
    void twoInstancesDecideEachRequestOnceAndAllowExactlyTheQuotaPerKeyIncludingRekeyedRecords(
            TestCluster cluster, @TempDir Path dirA, @TempDir Path dirB) throws Exception {
        cluster.createTopics(PARTITIONS);
        cluster.putPlan("""
                {"id": "metered", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": %d, "window": "PT1H"}}"""
                .formatted(LIMIT));
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            keys.add("key-" + k);
            cluster.assign("key-" + k, "metered");
        }

        try (Enforcer a = cluster.startEnforcer("a", dirA); Enforcer b = cluster.startEnforcer("b", dirB)) {
            cluster.awaitRequestPartitionsSplit(a, b, PARTITIONS);
            String requests = cluster.topics().requests().name();
            for (String key : keys) {
                TestCluster.awaitAssignment(a, key, "metered");
                TestCluster.awaitAssignment(b, key, "metered");
            }

            // Per key: most requests keyed by the API key (on their partition), every fifth from index 1
            // with no record key (sticky partitioner), every fifth from index 3 on a wrong partition;
            // the last two kinds are re-keyed through the repartition topic, possibly to the other instance.
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int i = 0; i < PER_KEY; i++) {
                for (String key : keys) {
                    ProducerRecord<byte[], byte[]> keyed = TestCluster.request(cluster.topics(), key, key + "-" + i, 1,
                            HOUR.plusSeconds(i).toString());
                    if (i % 5 == 1) {
                        records.add(new ProducerRecord<>(requests, null, keyed.value()));
                    } else if (i % 5 == 3) {
                        int right = Utils.toPositive(Utils.murmur2(keyed.key())) % PARTITIONS;
                        records.add(new ProducerRecord<>(requests, (right + 1) % PARTITIONS, keyed.key(), keyed.value()));
                    } else {
                        records.add(keyed);
                    }
                }
            }
            cluster.send(records);

            cluster.awaitDecisions(KEYS * PER_KEY);
            List<Decision> decisions = cluster.readAll(cluster.topics().decisions()).stream()
                    .map(ConsumerRecord::value).toList();
            assertEquals(KEYS * PER_KEY, decisions.size(), "one committed decision per request");
            Set<String> sentIds = new TreeSet<>();
            keys.forEach(key -> LongStream.range(0, PER_KEY).forEach(i -> sentIds.add(key + "-" + i)));
            assertEquals(sentIds, decisions.stream().map(Decision::requestId).collect(Collectors.toCollection(TreeSet::new)));

            Map<String, List<Decision>> byKey = decisions.stream()
                    .collect(Collectors.groupingBy(Decision::apiKey, TreeMap::new, Collectors.toList()));
            for (String key : keys) {
                List<Decision> ofKey = byKey.get(key);
                List<Decision> allowed = ofKey.stream().filter(Decision::allowed).toList();
                assertEquals(LIMIT, allowed.size(), key + " allowed exactly the quota: " + ofKey);
                assertEquals(LongStream.range(0, LIMIT).boxed().collect(Collectors.toSet()),
                        allowed.stream().map(Decision::remaining).collect(Collectors.toSet()),
                        key + ": one counter, each remaining value once: " + allowed);
                assertTrue(ofKey.stream().filter(d -> !d.allowed()).allMatch(d -> d.reason() == Reason.QUOTA_EXCEEDED),
                        key + ": " + ofKey);
            }

            cluster.awaitExceeded(KEYS);
            List<QuotaExceeded> exceeded = cluster.readAll(cluster.topics().exceeded()).stream()
                    .map(ConsumerRecord::value).toList();
            assertEquals(new TreeSet<>(keys), exceeded.stream().map(QuotaExceeded::apiKey).collect(Collectors.toCollection(TreeSet::new)));
            assertEquals(KEYS, exceeded.size(), "one event per key for its hour: " + exceeded);

            assertTrue(decided(a) > 0 && decided(b) > 0,
                    "both instances decided requests: a " + a.stats().decisions() + ", b " + b.stats().decisions());
            assertFalse(a.failed());
            assertFalse(b.failed());
        }
    }

    private static long decided(Enforcer enforcer) {
        return enforcer.stats().decided();
    }
}

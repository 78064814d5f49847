package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
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
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** An enforcer closed mid-stream and restarted, with its state dir kept or wiped, decides as one uninterrupted run. */
@ExtendWith(KafkaBroker.class)
class RestartIT {

    private static final int LIMIT = 1100;
    private static final List<String> KEYS = List.of("k-0", "k-1", "k-2", "k-3", "k-4");
    private static final int FIRST = 10;
    private static final int SECOND = 1000;
    private static final int THIRD = 200;
    private static final int PER_KEY = FIRST + SECOND + THIRD;
    private static final Instant HOUR = Instant.parse("2026-01-05T12:00:00Z");
    /** A key with a few requests, all decided by the first instance, which never writes usage. */
    private static final String QUIET = "k-quiet";
    private static final int QUIET_REQUESTS = 7;

    @Test
    void restartOnTheSameStateDirDecidesEveryRequestOnceAndContinuesTheCounts(TestCluster cluster, @TempDir Path stateDir)
            throws Exception {
        closeMidStreamAndRestart(cluster, stateDir, stateDir);
    }

    @Test
    void restartOnAWipedStateDirRestoresTheCountsFromTheChangelogWithoutDuplicates(TestCluster cluster,
                                                                                  @TempDir Path firstDir,
                                                                                  @TempDir Path freshDir)
            throws Exception {
        closeMidStreamAndRestart(cluster, firstDir, freshDir);
    }

    /**
     * Per key: 10 requests decided, 1000 more sent and the enforcer closed as soon as one of them is
     * decided (so it closes with most of them still to do), then 200 more after the restart. All fall
     * in one hour, so a fixed-window quota of 1100 allows exactly the first 1100 of each key, in the
     * order they were sent (one producer, one partition per key), whichever instance decides them.
     * The first instance's usage interval is an hour, so it counts usage but never writes it: the
     * usage topic's figures, the quiet key's above all, can only come from the second instance
     * finding them in the store it restored.
     */
    private static void closeMidStreamAndRestart(TestCluster cluster, Path firstDir, Path restartDir) throws Exception {
        cluster.createTopics(3);
        cluster.putPlan("""
                {"id": "metered", "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": %d, "window": "PT1H"}}"""
                .formatted(LIMIT));
        for (String key : KEYS) {
            cluster.assign(key, "metered");
        }
        cluster.assign(QUIET, "metered");

        Enforcer first = cluster.startEnforcer("first", firstDir,
                Map.of(EnforcerConfig.USAGE_INTERVAL_MS_CONFIG, Duration.ofHours(1).toMillis()));
        try (first) {
            for (String key : KEYS) {
                TestCluster.awaitAssignment(first, key, "metered");
            }
            TestCluster.awaitAssignment(first, QUIET, "metered");
            List<ProducerRecord<byte[], byte[]>> quiet = new ArrayList<>();
            for (int i = 0; i < QUIET_REQUESTS; i++) {
                quiet.add(TestCluster.request(cluster.topics(), QUIET, QUIET + "-" + i, 1, HOUR.plusSeconds(i).toString()));
            }
            cluster.send(quiet);
            cluster.send(batch(cluster, 0, FIRST));
            cluster.awaitDecisions(QUIET_REQUESTS + KEYS.size() * FIRST);
            cluster.send(batch(cluster, FIRST, FIRST + SECOND));
            cluster.awaitDecisions(QUIET_REQUESTS + KEYS.size() * FIRST + 1);
            assertFalse(first.failed());
        }
        // Not asserted (it depends on speed), but shown in failures: typically a few hundred of the 5000.
        String cut = "first instance decided " + first.stats().decided()
                + " of " + KEYS.size() * (FIRST + SECOND) + " before its close; ";

        try (Enforcer second = cluster.startEnforcer("second", restartDir)) {
            cluster.send(batch(cluster, FIRST + SECOND, PER_KEY));
            cluster.awaitDecisions(QUIET_REQUESTS + KEYS.size() * PER_KEY);
            assertFalse(second.failed());

            List<Decision> decisions = cluster.readAll(cluster.topics().decisions()).stream()
                    .map(ConsumerRecord::value).filter(decision -> !decision.apiKey().equals(QUIET)).toList();
            assertEquals(KEYS.size() * PER_KEY, decisions.size(), cut + "one committed decision per request: " + duplicates(decisions));
            Map<String, Decision> byId = decisions.stream()
                    .collect(Collectors.toMap(Decision::requestId, Function.identity()));
            for (String key : KEYS) {
                for (int i = 0; i < PER_KEY; i++) {
                    Decision decision = byId.get(key + "-" + i);
                    boolean allowed = i < LIMIT;
                    assertEquals(allowed, decision.allowed(), cut + key + "-" + i + ": " + decision);
                    assertEquals(allowed ? Reason.OK : Reason.QUOTA_EXCEEDED, decision.reason(), cut + decision);
                    assertEquals(LIMIT, decision.limit(), cut + decision);
                    assertEquals(allowed ? LIMIT - i - 1 : 0, decision.remaining(), cut + "count continues: " + decision);
                }
            }

            cluster.awaitExceeded(KEYS.size());
            List<QuotaExceeded> exceeded = cluster.readAll(cluster.topics().exceeded()).stream()
                    .map(ConsumerRecord::value).toList();
            assertEquals(KEYS.size(), exceeded.size(), cut + "one event per key for its hour: " + exceeded);
            assertEquals(new TreeSet<>(KEYS.stream().map(key -> key + "-" + LIMIT).toList()),
                    exceeded.stream().map(QuotaExceeded::requestId).collect(Collectors.toCollection(TreeSet::new)));

            // Figures counted after the first instance's last usage write were committed, not written: the second writes them.
            Map<String, KeyUsage> expected = new TreeMap<>();
            for (String key : KEYS) {
                long denied = PER_KEY - LIMIT;
                expected.put(key, new KeyUsage(key, "metered", LIMIT, HOUR, LIMIT, denied, LIMIT, denied, denied));
            }
            expected.put(QUIET, new KeyUsage(QUIET, "metered", LIMIT, HOUR, QUIET_REQUESTS, 0, QUIET_REQUESTS, 0, 0));
            TestCluster.awaitCondition(cut + "the usage topic's latest figure per key counts every decision once",
                    () -> expected.equals(latestUsage(cluster)), Duration.ofSeconds(30));
        }
    }

    private static Map<String, KeyUsage> latestUsage(TestCluster cluster) {
        Map<String, KeyUsage> latest = new TreeMap<>();
        cluster.readAll(cluster.topics().usage()).forEach(record -> latest.put(record.value().apiKey(), record.value()));
        return latest;
    }

    /** Requests {@code from} (inclusive) to {@code to} of every key, one second apart within the hour. */
    private static List<ProducerRecord<byte[], byte[]>> batch(TestCluster cluster, int from, int to) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = from; i < to; i++) {
            for (String key : KEYS) {
                records.add(TestCluster.request(cluster.topics(), key, key + "-" + i, 1, HOUR.plusSeconds(i).toString()));
            }
        }
        return records;
    }

    private static Map<String, Long> duplicates(List<Decision> decisions) {
        Map<String, Long> counts = decisions.stream()
                .collect(Collectors.groupingBy(Decision::requestId, TreeMap::new, Collectors.counting()));
        Set<String> once = counts.entrySet().stream().filter(e -> e.getValue() == 1).map(Map.Entry::getKey)
                .collect(Collectors.toSet());
        once.forEach(counts::remove);
        return counts;
    }
}

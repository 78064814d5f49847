package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records stamped by a producer's clock, skewed or hostile, cannot move the enforcer's time: the broker
 * stamps the requests and commands topics, so spent quotas stay spent, usage hours stay open and admin
 * commands apply now; and the enforcer refuses a requests topic whose producers would stamp it.
 */
@ExtendWith(KafkaBroker.class)
class ForgedTimestampsIT {

    private static final int PARTITIONS = 6;
    private static final int KEYS = 24;
    private static final long YEAR_9999 = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    @TempDir
    Path stateDir;

    @Test
    void requestsAndCommandsStampedAnHourADayOrMillenniaAheadNeitherGiveBackSpentQuotaNorMoveAnyKeysTime(
            TestCluster cluster) throws Exception {
        cluster.createTopics(PARTITIONS);
        cluster.putPlan("""
                {"id": "basic", "quota": {"name": "hourly", "limit": 2, "window": "PT1H"}}""");
        for (int k = 0; k < KEYS; k++) {
            cluster.assign("k-" + k, "basic");
        }
        awaitAnHourWithRoomToSpare();
        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir, Map.of(
                EnforcerConfig.REQUEST_MAX_LATENESS_MS_CONFIG, EnforcerConfig.definition().defaultValues()
                        .get(EnforcerConfig.REQUEST_MAX_LATENESS_MS_CONFIG)))) {
            TestCluster.awaitAssignment(enforcer, "k-" + (KEYS - 1), "basic");
            List<ProducerRecord<byte[], byte[]>> spend = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                for (int i = 0; i < 3; i++) {
                    spend.add(TestCluster.request(cluster.topics(), "k-" + k, "spend-" + k + "-" + i, 1, null));
                }
            }
            cluster.send(spend);
            List<Decision> spent = cluster.awaitDecisions(3 * KEYS);
            assertEquals(KEYS, spent.stream().filter(d -> d.reason() == Reason.QUOTA_EXCEEDED).count(),
                    "each key spent its 2 and was denied its third");

            long now = System.currentTimeMillis();
            long[] forged = {now + Duration.ofMinutes(59).toMillis(), now + Duration.ofMinutes(59).toMillis(),
                    now + Duration.ofDays(1).toMillis(), now + Duration.ofDays(1).toMillis(), YEAR_9999, YEAR_9999};
            List<ProducerRecord<byte[], byte[]>> forgeries = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                forgeries.add(new ProducerRecord<>(cluster.topics().requests().name(), p, forged[p],
                        TestCluster.bytes("forger-" + p), TestCluster.bytes(
                        "{\"requestId\": \"forged-" + p + "\", \"apiKey\": \"forger-" + p + "\"}")));
            }
            forgeries.add(TestCluster.request(cluster.topics(), "k-2", "json-ahead", 1,
                    Instant.ofEpochMilli(now).plus(Duration.ofDays(1)).toString()));
            forgeries.add(new ProducerRecord<>(cluster.topics().commands().name(), null, now + Duration.ofDays(1).toMillis(),
                    TestCluster.bytes("k-0"), TestCluster.bytes(
                    "{\"type\": \"grant\", \"apiKey\": \"k-0\", \"policy\": \"hourly\", \"amount\": 1}")));
            forgeries.add(new ProducerRecord<>(cluster.topics().commands().name(), null, YEAR_9999,
                    TestCluster.bytes("k-1"), TestCluster.bytes("{\"type\": \"reset\", \"apiKey\": \"k-1\"}")));
            cluster.send(forgeries);
            cluster.awaitDecisions(3 * KEYS + PARTITIONS + 1);

            List<ProducerRecord<byte[], byte[]>> after = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                after.add(TestCluster.request(cluster.topics(), "k-" + k, "after-" + k, 1, null));
            }
            cluster.send(after);
            List<Decision> decisions = cluster.awaitDecisions(3 * KEYS + PARTITIONS + 1 + KEYS);
            long checked = System.currentTimeMillis();

            Map<String, Decision> byId = new HashMap<>();
            decisions.forEach(d -> byId.put(d.requestId(), d));
            assertEquals(Reason.INVALID_REQUEST, byId.get("json-ahead").reason(), "a JSON event time a day ahead");
            assertTrue(byId.get("after-0").allowed(), "granted one more, now: " + byId.get("after-0"));
            assertEquals(0, byId.get("after-0").remaining());
            assertTrue(byId.get("after-1").allowed(), "reset, now: " + byId.get("after-1"));
            assertEquals(1, byId.get("after-1").remaining());
            for (int k = 2; k < KEYS; k++) {
                assertEquals(Reason.QUOTA_EXCEEDED, byId.get("after-" + k).reason(), "k-" + k + " got its quota back");
            }
            for (Decision decision : decisions) {
                assertTrue(decision.eventTime().toEpochMilli() <= checked, "decided in the future: " + decision);
            }
            for (ConsumerRecord<String, byte[]> request : cluster.readAll(cluster.topics().requests())) {
                assertEquals(TimestampType.LOG_APPEND_TIME, request.timestampType());
                assertTrue(request.timestamp() <= checked, "stamped by the broker: " + request.timestamp());
            }
            assertEquals(KafkaStreams.State.RUNNING, enforcer.streams().state());
            assertUsageMatchesDecisions(cluster, decisions);
        }
    }

    @Test
    void anEnforcerRefusesToStartOnARequestsTopicItsProducersStamp(TestCluster cluster) throws Exception {
        cluster.createTopics(1);
        String requests = cluster.topics().requests().name();
        cluster.alterTopicConfig(requests, TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> cluster.startEnforcer("a", stateDir).close());

        assertTrue(refused.getMessage().startsWith("topic " + requests + " has message.timestamp.type=CreateTime: the "
                + "enforcer requires LogAppendTime"), refused.getMessage());
    }

    /** The latest usage figure of every key's hour equals the count of its decisions there, as read back. */
    private static void assertUsageMatchesDecisions(TestCluster cluster, List<Decision> decisions) throws Exception {
        Map<String, long[]> counted = new HashMap<>();
        for (Decision d : decisions) {
            if (d.reason() == Reason.OK || d.reason() == Reason.QUOTA_EXCEEDED || d.reason() == Reason.RATE_LIMITED) {
                String hour = d.apiKey() + "@" + d.eventTime().truncatedTo(ChronoUnit.HOURS);
                counted.computeIfAbsent(hour, h -> new long[2])[d.allowed() ? 0 : 1]++;
            }
        }
        TestCluster.awaitCondition("usage of every key's hour written as counted", () -> {
            Map<String, KeyUsage> latest = new HashMap<>();
            cluster.readAll(cluster.topics().usage()).forEach(r -> latest.put(r.key(), r.value()));
            return counted.entrySet().stream().allMatch(e -> latest.containsKey(e.getKey())
                    && latest.get(e.getKey()).allowed() == e.getValue()[0]
                    && latest.get(e.getKey()).denied() == e.getValue()[1]);
        }, Duration.ofSeconds(30));
        assertEquals(KEYS, counted.size());
    }

    /** The test's requests must share one calendar hour: with under three minutes left, it waits for the next. */
    private static void awaitAnHourWithRoomToSpare() throws InterruptedException {
        Instant now = Instant.now();
        Instant next = now.truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        if (Duration.between(now, next).compareTo(Duration.ofMinutes(3)) < 0) {
            TestCluster.awaitCondition("the next hour began", () -> Instant.now().isAfter(next), Duration.ofMinutes(4));
        }
    }
}

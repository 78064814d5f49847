package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.client.AsyncQuotaClient;
import dev.quotaenforcer.client.GatewayDecision;
import dev.quotaenforcer.client.QuotaClient;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gateways' clients when the cluster is not there or answers wrongly: they are usable at once with no
 * broker listening, every check is answered by the failure policy within its timeout until the
 * broker comes, then by the enforcer; a reply that is not about the request waiting for it is ignored
 * and counted.
 */
class GatewayFaultsIT {

    private static final Duration TIMEOUT = Duration.ofMillis(300);

    @TempDir
    Path brokerDir;
    @TempDir
    Path stateDir;

    @Test
    void aGatewayStartedWhileTheBrokerIsUnreachableIsAnsweredByItsPolicyUntilTheBrokerComesThenByTheEnforcer()
            throws Exception {
        int port = EmbeddedKafka.freePort();
        int controllerPort = EmbeddedKafka.freePort();
        TestCluster cluster = new TestCluster("localhost:" + port, "outage");
        Map<String, Object> kafka = Map.of("bootstrap.servers", cluster.bootstrapServers());
        long building = System.nanoTime();
        try (QuotaClient sync = new QuotaClient(kafka, QuotaClient.Options.builder()
                .requestsTopic(cluster.topics().requests().name()).replyTopic(cluster.topics().replies().name())
                .replyPartition(0).timeout(TIMEOUT).failurePolicy(QuotaClient.FailurePolicy.FAIL_CLOSED).build(),
                Clock.systemUTC());
             AsyncQuotaClient async = new AsyncQuotaClient(kafka, cluster.topics().requests().name(),
                     cluster.topics().blocks().name(), Clock.systemUTC())) {
            long builtMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - building);
            System.out.println("GatewayFaultsIT: both clients built in " + builtMillis + " ms with no broker listening");
            assertTrue(builtMillis < 10_000, "built in " + builtMillis + " ms; it used to wait 60 s and throw");

            for (int i = 0; i < 5; i++) {
                long asking = System.nanoTime();
                CompletableFuture<GatewayDecision> answer = sync.check("k-1", 1, "down-" + i);
                long returnedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asking);
                GatewayDecision decision = answer.get(5, TimeUnit.SECONDS);
                assertTrue(returnedMillis < 1_000, "check returned after " + returnedMillis + " ms");
                assertTrue(decision.byFailurePolicy());
                assertFalse(decision.decision().allowed(), "fail closed");
                async.record("k-1", 1, "async-down-" + i);
                assertFalse(async.isBlocked("k-1"));
            }
            assertEquals(5, sync.decidedByFailurePolicy());

            try (EmbeddedKafka broker = EmbeddedKafka.start(brokerDir, port, controllerPort)) {
                try (Enforcer enforcer = cluster.startWithBasicPlan(1, stateDir, "k-1")) {
                    assertTrue(sync.awaitReady(Duration.ofSeconds(60)), "the sync client reached the broker");
                    assertTrue(async.awaitReady(Duration.ofSeconds(60)), "the async client reached the broker");

                    // The enforcer's first decisions may take longer than the 300 ms timeout: ask until one is in time.
                    GatewayDecision decided = null;
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    for (int i = 0; (decided == null || decided.byFailurePolicy()) && System.nanoTime() < deadline; i++) {
                        decided = sync.check("k-1", 1, "up-" + i).get(5, TimeUnit.SECONDS);
                    }
                    assertFalse(decided.byFailurePolicy(), "decided by the enforcer: " + decided);
                    assertTrue(decided.decision().allowed());
                }
            }
        }
    }

    @Test
    @ExtendWith(KafkaBroker.class)
    void aReplyAboutAnotherRequestIsIgnoredAndCountedAndTheCheckIsAnsweredByThePolicy(TestCluster cluster)
            throws Exception {
        cluster.createTopics(1);
        try (QuotaClient client = new QuotaClient(Map.of("bootstrap.servers", cluster.bootstrapServers()),
                QuotaClient.Options.builder().requestsTopic(cluster.topics().requests().name())
                        .replyTopic(cluster.topics().replies().name()).replyPartition(0).timeout(Duration.ofSeconds(20))
                        .failurePolicy(QuotaClient.FailurePolicy.FAIL_OPEN).build(), Clock.systemUTC())) {
            assertTrue(client.awaitReady(Duration.ofSeconds(60)));
            // No enforcer runs: the only reply is the forged one, with the check's own correlation id.
            CompletableFuture<GatewayDecision> answer = client.check("k-1", 1, "r-1");
            ConsumerRecord<String, byte[]> request = cluster.awaitRecords(cluster.topics().requests(), 1).get(0);
            Header correlation = request.headers().lastHeader(ReplyAddress.CORRELATION_HEADER);
            Decision forged = new Decision("r-other", "k-1", "basic", false, Reason.QUOTA_EXCEEDED, "hourly", 1, 0, 60, 60, 0,
                    Instant.now(), Map.of());
            ProducerRecord<byte[], byte[]> reply = new ProducerRecord<>(cluster.topics().replies().name(), 0,
                    TestCluster.bytes("k-1"), cluster.topics().replies().valueSerde().serializer().serialize(null, forged));
            reply.headers().add(ReplyAddress.CORRELATION_HEADER, correlation.value());
            cluster.send(List.of(reply));
            TestCluster.awaitCondition("the forged reply was read", () -> client.mismatchedReplies() == 1, Duration.ofSeconds(15));
            assertFalse(answer.isDone(), "read while the check waited, and not taken");

            GatewayDecision decision = answer.get(30, TimeUnit.SECONDS);
            assertTrue(decision.byFailurePolicy(), "the forged denial was not taken: " + decision);
            assertEquals(1, client.mismatchedReplies());
        }
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.client.GatewayDecision;
import dev.quotaenforcer.client.QuotaClient;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.runtime.Enforcer;
import dev.quotaenforcer.topology.Topic;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The synchronous gateway client on a real broker: each gateway gets its own decisions, or its failure policy's. */
@ExtendWith(KafkaBroker.class)
class GatewayClientIT {

    @TempDir
    Path stateDir;

    private QuotaClient client(TestCluster cluster, String replies, int partition, Duration timeout,
                               QuotaClient.FailurePolicy policy) throws InterruptedException {
        QuotaClient client = new QuotaClient(Map.of("bootstrap.servers", cluster.bootstrapServers()),
                QuotaClient.Options.builder().requestsTopic(cluster.topics().requests().name()).replyTopic(replies)
                        .replyPartition(partition).timeout(timeout).failurePolicy(policy).build(),
                Clock.systemUTC());
        if (!client.awaitReady(Duration.ofSeconds(60))) {
            client.close();
            throw new AssertionError("the client did not reach the cluster");
        }
        return client;
    }

    @Test
    void twoGatewaysEachReceiveOnlyTheirOwnDecisions(TestCluster cluster) throws Exception {
        cluster.createTopics(3);
        String replies = cluster.topics().replies().name();
        cluster.putPlan("""
                {"id": "small", "quota": {"name": "hourly", "limit": 6, "window": "PT1H"}}""");
        cluster.assign("k-1", "small");
        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir);
             QuotaClient gatewayA = client(cluster, replies, 0, Duration.ofSeconds(30), QuotaClient.FailurePolicy.FAIL_CLOSED);
             QuotaClient gatewayB = client(cluster, replies, 1, Duration.ofSeconds(30), QuotaClient.FailurePolicy.FAIL_CLOSED)) {
            TestCluster.awaitAssignment(enforcer, "k-1", "small");
            List<CompletableFuture<GatewayDecision>> fromA = new ArrayList<>();
            List<CompletableFuture<GatewayDecision>> fromB = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                fromA.add(gatewayA.check("k-1", 1, "a-" + i));
                fromB.add(gatewayB.check("k-1", 1, "b-" + i));
            }
            long allowed = 0;
            for (int i = 0; i < 4; i++) {
                GatewayDecision a = fromA.get(i).get(60, TimeUnit.SECONDS);
                GatewayDecision b = fromB.get(i).get(60, TimeUnit.SECONDS);
                assertEquals("a-" + i, a.decision().requestId());
                assertEquals("b-" + i, b.decision().requestId());
                assertFalse(a.byFailurePolicy() || b.byFailurePolicy(), "decided by the enforcer");
                allowed += (a.allowed() ? 1 : 0) + (b.allowed() ? 1 : 0);
            }
            assertEquals(6, allowed, "one quota of 6 for the key, whichever gateway asked");
            assertEquals(0, gatewayA.decidedByFailurePolicy() + gatewayB.decidedByFailurePolicy());

            List<ConsumerRecord<String, byte[]>> onReplies = cluster.readAll(
                    new Topic<>(replies, Serdes.String(), Serdes.ByteArray()));
            for (ConsumerRecord<String, byte[]> reply : onReplies) {
                String body = new String(reply.value(), StandardCharsets.UTF_8);
                assertTrue(body.contains(reply.partition() == 0 ? "\"a-" : "\"b-"),
                        "partition " + reply.partition() + " holds only its gateway's decisions: " + body);
            }
            assertEquals(8, onReplies.size());
        }
    }

    @Test
    void withoutAnEnforcerTheFailurePolicyDecidesAndIsCounted(TestCluster cluster) throws Exception {
        cluster.createTopics(1);
        String replies = cluster.topics().replies().name();
        try (QuotaClient open = client(cluster, replies, 0, Duration.ofMillis(500), QuotaClient.FailurePolicy.FAIL_OPEN);
             QuotaClient closed = client(cluster, replies, 1, Duration.ofMillis(500), QuotaClient.FailurePolicy.FAIL_CLOSED)) {
            GatewayDecision openDecision = open.check("k-1", 1, "o-1").get(30, TimeUnit.SECONDS);
            GatewayDecision closedDecision = closed.check("k-1", 1, "c-1").get(30, TimeUnit.SECONDS);

            assertTrue(openDecision.byFailurePolicy());
            assertTrue(openDecision.allowed());
            assertEquals(Reason.UNAVAILABLE, openDecision.decision().reason());
            assertTrue(closedDecision.byFailurePolicy());
            assertFalse(closedDecision.allowed());
            assertEquals(1, open.decidedByFailurePolicy());
            assertEquals(1, closed.decidedByFailurePolicy());
        }
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.client.GatewayDecision;
import dev.quotaenforcer.client.QuotaClient;
import dev.quotaenforcer.it.KafkaBroker;
import dev.quotaenforcer.it.TestCluster;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The latency scenario's floor on a real broker: every request comes back to the partition its gateway reads. */
@ExtendWith(KafkaBroker.class)
class ReplyEchoIT {

    @TempDir
    Path stateDir;

    @Test
    void answersEveryRequestOnTheAskedReplyPartitionUnderExactlyOnceReadCommittedWhileAlsoReadingIdleTopics(TestCluster cluster)
            throws Exception {
        cluster.createTopics(3);
        String requests = cluster.topics().requests().name();
        String replies = cluster.topics().replies().name();
        List<String> idle = List.of(cluster.prefix() + ".idle-0", cluster.prefix() + ".idle-1");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            admin.createTopics(idle.stream().map(name -> new NewTopic(name, 3, (short) 1)).toList()).all().get();
        }
        Map<String, Object> settings = Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                StreamsConfig.APPLICATION_ID_CONFIG, "echo-" + cluster.prefix(),
                StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2,
                StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        try (ReplyEcho echo = new ReplyEcho(settings, requests, idle, replies);
             // Were the asked partition ignored, replies would follow their keys over all 12 and most never reach 7.
             QuotaClient client = new QuotaClient(Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()),
                     QuotaClient.Options.builder().requestsTopic(requests).replyTopic(replies).replyPartition(7)
                             .timeout(Duration.ofSeconds(30)).failurePolicy(QuotaClient.FailurePolicy.FAIL_CLOSED)
                             .replyIsolation(IsolationLevel.READ_COMMITTED).build(), Clock.systemUTC())) {
            assertTrue(echo.awaitRunning(Duration.ofSeconds(60)), "the echo runs");
            Set<String> assigned = echo.streams().metadataForLocalThreads().stream()
                    .flatMap(thread -> thread.activeTasks().stream()).flatMap(task -> task.topicPartitions().stream())
                    .map(partition -> partition.topic() + "-" + partition.partition()).collect(Collectors.toSet());
            assertEquals(9, assigned.size(), "the requests' partitions and the idle topics': " + assigned);
            assertTrue(client.awaitReady(Duration.ofSeconds(60)), "the client reached the cluster");
            List<CompletableFuture<GatewayDecision>> answers = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                answers.add(client.check("key-" + i, 1, "r-" + i));
            }
            for (int i = 0; i < answers.size(); i++) {
                GatewayDecision answer = answers.get(i).get();
                assertFalse(answer.byFailurePolicy(), "request " + i + " was answered by the echo");
                assertEquals("r-" + i, answer.decision().requestId());
                assertEquals("key-" + i, answer.decision().apiKey());
            }
            assertEquals(30, echo.answered());
            assertEquals(0, client.decidedByFailurePolicy());
        }
    }
}

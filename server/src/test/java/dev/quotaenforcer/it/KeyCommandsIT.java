package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.admin.TopicApplier;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.runtime.Enforcer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin commands of the command line ({@code keys reset|grant|block|unblock}) against a running
 * enforcer on the real broker: each takes effect from the key's next request, the blocks topic
 * follows, and a command that cannot apply is dead-lettered.
 *
 * <p>Unlike the other ITs, requests here carry no event time of their own: a command is applied at
 * its record's time, which the command line takes from the clock, so the requests must live on the
 * same clock. The quota's window is 744 hours, which a test of seconds crosses about once in 10^5 runs.
 */
@ExtendWith(KafkaBroker.class)
class KeyCommandsIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String PLAN = """
            {"id": "ops", "quota": {"name": "monthly", "limit": 2, "window": "PT744H"}}""";

    @TempDir
    Path stateDir;

    private int sent;

    /** Sends one request of k-ops now and returns its decision. */
    private Decision request(TestCluster cluster) {
        String id = "r-" + sent++;
        cluster.send(List.of(TestCluster.request(cluster.topics(), "k-ops", id, 1, null)));
        List<Decision> decisions = cluster.awaitDecisions(read -> read.stream().anyMatch(d -> id.equals(d.requestId())));
        return decisions.stream().filter(d -> id.equals(d.requestId())).findFirst().orElseThrow();
    }

    private static void ok(TestCluster.CliResult result) {
        assertEquals(0, result.status(), result.err());
    }

    /** The key's latest record on the blocks topic: its block, or null for a tombstone. */
    private static Block latestBlock(TestCluster cluster, int records) {
        List<ConsumerRecord<String, Block>> blocks = cluster.awaitRecords(cluster.topics().blocks(), records);
        assertEquals(records, blocks.size(), "blocks records: " + blocks);
        return blocks.get(blocks.size() - 1).value();
    }

    @Test
    void cliCommandsChangeTheDecisionsOfARunningEnforcer(TestCluster cluster) throws Exception {
        cluster.createTopics(2);
        cluster.putPlan(PLAN);
        cluster.assign("k-ops", "ops");

        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir)) {
            TestCluster.awaitAssignment(enforcer, "k-ops", "ops");
            assertTrue(request(cluster).allowed());
            assertTrue(request(cluster).allowed());
            assertEquals(Reason.QUOTA_EXCEEDED, request(cluster).reason());
            assertEquals(Reason.QUOTA_EXCEEDED, latestBlock(cluster, 1).reason());

            ok(cluster.cli("keys", "grant", "k-ops", "--policy", "monthly", "--amount", "1", "--reason", "customer call"));
            assertNull(latestBlock(cluster, 2), "the grant lifts the quota block");
            Decision granted = request(cluster);
            assertTrue(granted.allowed(), granted.toString());
            assertEquals(3, granted.limit());
            assertEquals(Reason.QUOTA_EXCEEDED, request(cluster).reason(), "the grant is used up");

            ok(cluster.cli("keys", "block", "k-ops", "--for", "PT1H", "--reason", "abuse"));
            Block block = latestBlock(cluster, 4);
            assertEquals(Reason.BLOCKED, block.reason());
            Decision blocked = request(cluster);
            assertEquals(Reason.BLOCKED, blocked.reason());
            assertTrue(blocked.retryAfterSeconds() > 3590 && blocked.retryAfterSeconds() <= 3600, blocked.toString());
            JsonNode usage = JSON.readTree(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://localhost:" + enforcer.httpPort() + "/usage/k-ops")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            assertTrue(usage.path("blocked").asBoolean(), "the operator API shows the block: " + usage);
            assertEquals(block.until().toString(), usage.path("blockedUntil").asText(), usage.toString());
            assertEquals(3, usage.path("policies").get(0).path("limit").asLong(), "the grant counts in the limit: " + usage);

            ok(cluster.cli("keys", "unblock", "k-ops"));
            assertEquals(Reason.QUOTA_EXCEEDED, latestBlock(cluster, 5).reason(), "the quota is still used up");
            assertEquals(Reason.QUOTA_EXCEEDED, request(cluster).reason());

            ok(cluster.cli("keys", "reset", "k-ops", "--policy", "monthly"));
            assertNull(latestBlock(cluster, 6));
            Decision reset = request(cluster);
            assertTrue(reset.allowed(), reset.toString());
            assertEquals(3, reset.limit(), "the grant outlives the reset: it lasts as long as the window");
            assertEquals(2, reset.remaining(), "counted afresh: 1 of 3 used");

            ok(cluster.cli("keys", "grant", "k-ops", "--policy", "daily", "--amount", "5"));
            ConsumerRecord<byte[], byte[]> dead = cluster.awaitRecords(cluster.topics().deadLetter(), 1).get(0);
            assertEquals("COMMAND_NOT_APPLICABLE", new String(dead.headers().lastHeader("dlq.error").value(),
                    StandardCharsets.UTF_8));
            assertEquals(Reason.OK, request(cluster).reason(), "the stream goes on");
            assertFalse(enforcer.failed());
            assertEquals(Map.of(KeyCommand.Type.GRANT, 1L, KeyCommand.Type.BLOCK, 1L, KeyCommand.Type.UNBLOCK, 1L,
                    KeyCommand.Type.RESET, 1L), enforcer.stats().commands(), "the grant of daily was not applied");
        }
    }

    @Test
    void enforcerRefusesToStartWhenCommandsAndRequestsArePartitionedDifferently(TestCluster cluster, @TempDir Path dir)
            throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            TopicApplier.apply(admin, TopicDefinitions.bundled().withPrefix(cluster.prefix())
                    .withPartitions(cluster.topics().requests().name(), 3)
                    .withPartitions(cluster.topics().commands().name(), 2));
        }

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> Enforcer.start(cluster.enforcerSettings("a", dir)));

        assertTrue(refused.getMessage().contains(cluster.topics().commands().name() + " has 2 partitions but "
                + cluster.topics().requests().name() + " has 3"), refused.getMessage());
    }

    @Test
    void cliRefusesBadValuesWithExitStatusTwoNamingThem(TestCluster cluster) throws Exception {
        cluster.createTopics(2);

        TestCluster.CliResult amount = cluster.cli("keys", "grant", "k-ops", "--policy", "monthly", "--amount", "0");
        TestCluster.CliResult until = cluster.cli("keys", "block", "k-ops", "--until", "tomorrow");
        TestCluster.CliResult past = cluster.cli("keys", "block", "k-ops", "--until", "2020-01-01T00:00:00Z");
        TestCluster.CliResult both = cluster.cli("keys", "block", "k-ops", "--for", "PT1H", "--until", "2099-01-01T00:00:00Z");

        assertEquals(2, amount.status());
        assertTrue(amount.err().contains("amount: 0 must be a whole number from 1 to 1000000000"), amount.err());
        assertEquals(2, until.status());
        assertTrue(until.err().contains("--until: tomorrow is not an ISO-8601 date-time"), until.err());
        assertEquals(2, past.status());
        assertTrue(past.err().contains("2020-01-01T00:00:00Z is not in the future"), past.err());
        assertEquals(2, both.status());
        assertTrue(both.err().contains("--until and --for: give one of them, not both"), both.err());
        for (TestCluster.CliResult refused : List.of(amount, until, past, both)) {
            assertEquals("", refused.out(), "nothing was published");
        }
    }
}

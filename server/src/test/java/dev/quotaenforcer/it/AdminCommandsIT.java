package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The operator commands (topics apply, plans put and list, keys assign) against a real broker. */
@ExtendWith(KafkaBroker.class)
class AdminCommandsIT {

    @TempDir
    Path dir;

    @Test
    void topicsApplyCreatesMissingTopicsThenReportsDifferencesWithoutChangingThem(TestCluster cluster) throws Exception {
        assertEquals(0, cluster.cli("topics", "apply").status());
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            // A topic just created may take a moment to show in every broker's metadata.
            TestCluster.awaitCondition("every topic listed", () -> listsAll(admin, cluster), Duration.ofSeconds(30));

            assertEquals(0, cluster.cli("topics", "apply").status(), "a second apply finds every topic as defined");

            ConfigResource requests = new ConfigResource(ConfigResource.Type.TOPIC, cluster.topics().requests().name());
            admin.incrementalAlterConfigs(Map.of(requests, List.of(new AlterConfigOp(
                    new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET)))).all().get();
            assertEquals(3, cluster.cli("topics", "apply").status(), "a differing topic is reported");
            String retention = admin.describeConfigs(List.of(requests)).all().get().get(requests)
                    .get("retention.ms").value();
            assertEquals("1000", retention, "and left as it is");
        }
    }

    private static boolean listsAll(Admin admin, TestCluster cluster) {
        try {
            return admin.listTopics().names().get().containsAll(cluster.topics().names());
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError("cannot list topics", e);
        }
    }

    @Test
    void plansPutAndKeysAssignTakeEffectAndPlansListShowsThePlansInForce(TestCluster cluster) throws Exception {
        cluster.createTopics(2);
        Path plan = Files.writeString(dir.resolve("gold.json"), """
                {"id": "gold", "quota": {"name": "hourly", "limit": 3, "window": "PT1H"}}""");
        Path invalid = Files.writeString(dir.resolve("broken.json"), """
                {"id": "broken", "quota": {"name": "hourly", "limit": -3, "window": "PT1H"}}""");
        Path later = Files.writeString(dir.resolve("platinum.json"), """
                {"id": "platinum", "quota": {"name": "hourly", "limit": 10, "window": "PT1H"}}""");

        assertEquals(0, cluster.cli("plans", "put", plan.toString()).status());
        TestCluster.CliResult rejected = cluster.cli("plans", "put", invalid.toString());
        assertEquals(2, rejected.status());
        assertTrue(rejected.err().contains("quota.limit: -3"), rejected.err());

        try (Enforcer enforcer = cluster.startEnforcer("a", dir.resolve("state"))) {
            // A published plan is in force once the enforcer has validated it into the catalog keys assign reads.
            TestCluster.awaitCondition("gold in the plan catalog",
                    () -> cluster.cli("plans", "list").out().startsWith("gold\t"), Duration.ofSeconds(60));
            TestCluster.CliResult unknown = cluster.cli("keys", "assign", "k-x", "nosuchplan");
            assertEquals(2, unknown.status(), unknown.out());
            assertEquals("quota-enforcer: plan \"nosuchplan\" is not in force; plans in force: gold. Use "
                    + "--allow-unknown-plan to assign it anyway (its requests are denied until the plan exists).\n",
                    unknown.err());
            assertEquals("", unknown.out());
            assertEquals(0, cluster.cli("keys", "assign", "k-gold", "gold").status());

            TestCluster.awaitAssignment(enforcer, "k-gold", "gold");
            for (int i = 0; i < 4; i++) {
                cluster.send(List.of(TestCluster.request(cluster.topics(), "k-gold", "r-" + i, 1, "2026-01-05T12:00:00Z")));
            }
            List<Decision> decisions = cluster.awaitDecisions(4);
            assertEquals(3, decisions.stream().filter(Decision::allowed).count());
            assertTrue(decisions.stream().allMatch(d -> "gold".equals(d.plan())));

            TestCluster.CliResult list = cluster.cli("plans", "list");
            assertEquals(0, list.status());
            assertEquals("gold\tquota hourly (fixed-window, 3 per 1h)\n", list.out(), "the invalid plan never entered");

            TestCluster.CliResult early = cluster.cli("keys", "assign", "k-early", "platinum", "--allow-unknown-plan");
            assertEquals(0, early.status(), early.err());
            assertEquals("assigned k-early to plan platinum\n", early.out());
            assertEquals(0, cluster.cli("plans", "put", later.toString()).status());
            TestCluster.awaitAssignment(enforcer, "k-early", "platinum");
            cluster.send(List.of(TestCluster.request(cluster.topics(), "k-early", "r-e", 1, "2026-01-05T12:00:00Z")));
            Decision first = cluster.awaitDecisions(5).stream().filter(d -> "k-early".equals(d.apiKey())).findFirst()
                    .orElseThrow();
            assertTrue(first.allowed() && "platinum".equals(first.plan()), "the pre-assigned key decided on its plan: " + first);
        }
        List<String> assigned = cluster.readAll(cluster.topics().apiKeys()).stream().map(ConsumerRecord::key).sorted()
                .toList();
        assertEquals(List.of("k-early", "k-gold"), assigned, "a refused assignment is never written");
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.cli.QuotaEnforcerCommand;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.runtime.Enforcer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The operator commands (topics apply, plans put and list, keys assign) against a real broker. */
@ExtendWith(KafkaBroker.class)
class AdminCommandsIT {

    @TempDir
    Path dir;

    private record Result(int status, String out, String err) {
    }

    private static Result run(TestCluster cluster, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new QuotaEnforcerCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        String[] full = new String[args.length + 4];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = "--bootstrap-servers";
        full[args.length + 1] = cluster.bootstrapServers();
        full[args.length + 2] = "--set";
        full[args.length + 3] = "quota.topic.prefix=" + cluster.prefix();
        int status = command.execute(full);
        return new Result(status, out.toString(), err.toString());
    }

    @Test
    void topicsApplyCreatesMissingTopicsThenReportsDifferencesWithoutChangingThem(TestCluster cluster) throws Exception {
        assertEquals(0, run(cluster, "topics", "apply").status());
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            assertTrue(admin.listTopics().names().get().containsAll(cluster.topics().names()));

            assertEquals(0, run(cluster, "topics", "apply").status(), "a second apply finds every topic as defined");

            ConfigResource requests = new ConfigResource(ConfigResource.Type.TOPIC, cluster.topics().requests().name());
            admin.incrementalAlterConfigs(Map.of(requests, List.of(new AlterConfigOp(
                    new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET)))).all().get();
            assertEquals(3, run(cluster, "topics", "apply").status(), "a differing topic is reported");
            String retention = admin.describeConfigs(List.of(requests)).all().get().get(requests)
                    .get("retention.ms").value();
            assertEquals("1000", retention, "and left as it is");
        }
    }

    @Test
    void plansPutAndKeysAssignTakeEffectAndPlansListShowsThePlansInForce(TestCluster cluster) throws Exception {
        cluster.createTopics(2);
        Path plan = Files.writeString(dir.resolve("gold.json"), """
                {"id": "gold", "quota": {"name": "hourly", "limit": 3, "window": "PT1H"}}""");
        Path invalid = Files.writeString(dir.resolve("broken.json"), """
                {"id": "broken", "quota": {"name": "hourly", "limit": -3, "window": "PT1H"}}""");

        assertEquals(0, run(cluster, "plans", "put", plan.toString()).status());
        Result rejected = run(cluster, "plans", "put", invalid.toString());
        assertEquals(2, rejected.status());
        assertTrue(rejected.err().contains("quota.limit: -3"), rejected.err());
        assertEquals(0, run(cluster, "keys", "assign", "k-gold", "gold").status());

        try (Enforcer enforcer = cluster.startEnforcer("a", dir.resolve("state"))) {
            TestCluster.awaitAssignment(enforcer, "k-gold", "gold");
            for (int i = 0; i < 4; i++) {
                cluster.send(List.of(TestCluster.request(cluster.topics(), "k-gold", "r-" + i, 1, "2026-01-05T12:00:00Z")));
            }
            List<Decision> decisions = cluster.awaitDecisions(4);
            assertEquals(3, decisions.stream().filter(Decision::allowed).count());
            assertTrue(decisions.stream().allMatch(d -> "gold".equals(d.plan())));

            Result list = run(cluster, "plans", "list");
            assertEquals(0, list.status());
            assertEquals("gold\tquota hourly (fixed-window, 3 per PT1H)\n", list.out(), "the invalid plan never entered");
        }
    }
}

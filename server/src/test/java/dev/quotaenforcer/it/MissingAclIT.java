package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.admin.AclMatrix;
import dev.quotaenforcer.runtime.Enforcer;
import dev.quotaenforcer.topology.Topics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An enforcer lacking any one of its ACLs stops at startup, before Kafka Streams runs, with a message
 * naming that ACL and the command that grants it.
 */
class MissingAclIT {

    /** How many ACLs the enforcer needs: one principal lacks each. */
    private static final int ACLS = AclMatrix.of("quota", "quota-enforcer").entries(AclMatrix.Role.ENFORCER).size();
    private static final String FIRST_START = "first-start";

    @TempDir
    static Path dir;

    private static SecureBroker broker;
    private static TestCluster cluster;

    /**
     * A cluster whose enforcer has run before (its internal topics exist, so every ACL on them can be
     * checked) and principals {@code lacks-<n>}, each granted every enforcer ACL but the n-th.
     */
    @BeforeAll
    static void grantEveryEnforcerAclButOne() throws Exception {
        List<String> users = new ArrayList<>(IntStream.range(0, ACLS).mapToObj(MissingAclIT::user).toList());
        users.add(FIRST_START);
        broker = SecureBroker.start(SecureBroker.Variant.SCRAM, dir.resolve("broker"), users.toArray(String[]::new));
        cluster = new TestCluster(broker.client(SecureBroker.ADMIN), "missingAcl");
        cluster.createTopics(1);
        try (Admin admin = Admin.create(broker.client(SecureBroker.ADMIN))) {
            admin.createTopics(List.of(new NewTopic(cluster.applicationId() + "-" + Topics.REKEYED_REQUESTS + "-repartition",
                    1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        List<AclMatrix.Entry> entries = AclMatrix.of(cluster.prefix(), cluster.applicationId()).entries(AclMatrix.Role.ENFORCER);
        List<AclBinding> bindings = new ArrayList<>();
        for (int lacking = 0; lacking < ACLS; lacking++) {
            for (int granted = 0; granted < ACLS; granted++) {
                if (granted != lacking) {
                    bindings.add(entries.get(granted).binding("User:" + user(lacking)));
                }
            }
        }
        broker.grant(bindings);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    static Stream<Arguments> enforcerAcls() {
        List<AclMatrix.Entry> entries = AclMatrix.of(cluster.prefix(), cluster.applicationId()).entries(AclMatrix.Role.ENFORCER);
        return IntStream.range(0, ACLS).mapToObj(n -> Arguments.of(entries.get(n).describe(), n));
    }

    @ParameterizedTest(name = "without {0}")
    @MethodSource("enforcerAcls")
    void enforcerLackingOneAclFailsAtStartupNamingItAndTheCommandThatGrantsIt(String described, int lacking) {
        AclMatrix.Entry entry = AclMatrix.of(cluster.prefix(), cluster.applicationId()).entries(AclMatrix.Role.ENFORCER).get(lacking);
        assertFailsNaming(cluster, user(lacking), entry);
    }

    @Test
    void onAFirstStartEnforcerLackingCreateOnItsInternalTopicsFailsAtStartupNamingIt() throws Exception {
        TestCluster fresh = new TestCluster(broker.client(SecureBroker.ADMIN), "firstStart");
        fresh.createTopics(1);
        List<AclMatrix.Entry> entries = AclMatrix.of(fresh.prefix(), fresh.applicationId()).entries(AclMatrix.Role.ENFORCER);
        AclMatrix.Entry create = entries.stream()
                .filter(entry -> entry.operation() == AclOperation.CREATE && entry.pattern() == PatternType.PREFIXED)
                .findFirst().orElseThrow();
        broker.grant(entries.stream().filter(entry -> !entry.equals(create)).map(entry -> entry.binding("User:" + FIRST_START))
                .toList());
        assertFailsNaming(fresh, FIRST_START, create);
    }

    private static void assertFailsNaming(TestCluster on, String user, AclMatrix.Entry lacking) {
        Map<String, Object> settings = on.enforcerSettings("a", dir.resolve("state"));
        settings.putAll(broker.client(user));
        long started = System.nanoTime();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Enforcer.start(settings).close(),
                "the enforcer refuses to start without " + lacking.describe());
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.println("MissingAclIT: without " + lacking.describe() + " refused in " + millis + " ms: " + refused.getMessage());
        String message = refused.getMessage();
        assertTrue(message.contains("lacks an ACL it needs"), "one ACL is missing: " + message);
        assertTrue(message.contains(lacking.describe()), "names " + lacking.describe() + ": " + message);
        assertTrue(message.contains(lacking.kafkaAclsCommand("User:" + user, on.bootstrapServers())), "gives the command: " + message);
    }

    private static String user(int lacking) {
        return "lacks-" + lacking;
    }
}

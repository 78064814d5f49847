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
import java.util.function.Predicate;
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

    private static final String PRINCIPAL = "User:" + LeastPrivilegeRun.ENFORCER;

    @TempDir
    static Path dir;

    private static SecureBroker broker;
    private static TestCluster cluster;

    /** A cluster whose enforcer has run before: its internal topics exist, so every ACL on them can be checked. */
    @BeforeAll
    static void grantEveryEnforcerAcl() throws Exception {
        broker = SecureBroker.start(SecureBroker.Variant.SCRAM, dir.resolve("broker"), LeastPrivilegeRun.ENFORCER);
        cluster = new TestCluster(broker.client(SecureBroker.ADMIN), "missingAcl");
        cluster.createTopics(1);
        try (Admin admin = Admin.create(broker.client(SecureBroker.ADMIN))) {
            admin.createTopics(List.of(new NewTopic(cluster.applicationId() + "-" + Topics.REKEYED_REQUESTS + "-repartition",
                    1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        broker.grant(bindings(cluster, entry -> true));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    static Stream<Arguments> enforcerAcls() {
        return AclMatrix.of(cluster.prefix(), cluster.applicationId()).entries(AclMatrix.Role.ENFORCER).stream()
                .map(entry -> Arguments.of(entry.describe(), entry));
    }

    @ParameterizedTest(name = "without {0}")
    @MethodSource("enforcerAcls")
    void enforcerLackingOneAclFailsAtStartupNamingItAndTheCommandThatGrantsIt(String described, AclMatrix.Entry entry)
            throws Exception {
        AclBinding lacking = entry.binding(PRINCIPAL);
        broker.revoke(List.of(lacking));
        try {
            assertFailsNaming(cluster, entry);
        } finally {
            broker.grant(List.of(lacking));
        }
    }

    @Test
    void onAFirstStartEnforcerLackingCreateOnItsInternalTopicsFailsAtStartupNamingIt() throws Exception {
        TestCluster fresh = new TestCluster(broker.client(SecureBroker.ADMIN), "firstStart");
        fresh.createTopics(1);
        AclMatrix.Entry create = AclMatrix.of(fresh.prefix(), fresh.applicationId()).entries(AclMatrix.Role.ENFORCER).stream()
                .filter(entry -> entry.operation() == AclOperation.CREATE && entry.pattern() == PatternType.PREFIXED)
                .findFirst().orElseThrow();
        broker.grant(bindings(fresh, entry -> !entry.equals(create)));
        assertFailsNaming(fresh, create);
    }

    private static void assertFailsNaming(TestCluster on, AclMatrix.Entry lacking) {
        Map<String, Object> settings = on.enforcerSettings("a", dir.resolve("state"));
        settings.putAll(broker.client(LeastPrivilegeRun.ENFORCER));
        long started = System.nanoTime();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> Enforcer.start(settings).close(),
                "the enforcer refuses to start without " + lacking.describe());
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.println("MissingAclIT: without " + lacking.describe() + " refused in " + millis + " ms: " + refused.getMessage());
        String message = refused.getMessage();
        assertTrue(message.contains("lacks an ACL it needs"), "one ACL is missing: " + message);
        assertTrue(message.contains(lacking.describe()), "names " + lacking.describe() + ": " + message);
        assertTrue(message.contains(lacking.kafkaAclsCommand(PRINCIPAL, on.bootstrapServers())), "gives the command: " + message);
    }

    private static List<AclBinding> bindings(TestCluster on, Predicate<AclMatrix.Entry> which) {
        List<AclBinding> bindings = new ArrayList<>();
        AclMatrix.of(on.prefix(), on.applicationId()).entries(AclMatrix.Role.ENFORCER).stream().filter(which)
                .forEach(entry -> bindings.add(entry.binding(PRINCIPAL)));
        return bindings;
    }
}

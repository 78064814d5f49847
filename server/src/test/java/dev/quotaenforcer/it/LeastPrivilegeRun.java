package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.admin.AclMatrix;
import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.KeyCommandClient;
import dev.quotaenforcer.client.AsyncQuotaClient;
import dev.quotaenforcer.client.GatewayDecision;
import dev.quotaenforcer.client.QuotaClient;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.acl.AclBinding;

/**
 * The least-privilege scenario both secured brokers run: the cluster administrator creates the three
 * principals' ACLs with {@code acls create}, an operator publishes a plan and assigns a key, the
 * enforcer runs from the shaded jar as its own JVM with nothing but its ACLs, a gateway's clients get
 * its decision and see an operator's block, the enforcer restarted keeps deciding, and its whole
 * output holds none of its secrets.
 */
final class LeastPrivilegeRun {

    static final String ENFORCER = "enforcer";
    static final String GATEWAY = "gateway";
    static final String OPERATOR = "operator";
    private static final Duration WAIT = Duration.ofSeconds(90);

    private LeastPrivilegeRun() {
    }

    /** Runs the scenario on {@code broker}, with files under {@code dir}; returns the enforcer's output. */
    static String run(SecureBroker broker, Path dir, String test) throws Exception {
        TestCluster admin = new TestCluster(broker.client(SecureBroker.ADMIN), test);
        admin.createTopics(2);
        TestCluster.CliResult created = admin.cli("acls", "create", "--enforcer", "User:" + ENFORCER,
                "--gateway", "User:" + GATEWAY, "--operator", "User:" + OPERATOR, "--set", "application.id=" + admin.applicationId());
        assertEquals(0, created.status(), "acls create: " + created.err());
        broker.awaitHeld(bindings(admin));

        CatalogClient operator = new CatalogClient(broker.client(OPERATOR), admin.topics());
        operator.putPlan(TestCluster.BASIC_PLAN.getBytes(StandardCharsets.UTF_8));
        operator.assignKey("k1", "basic");

        Map<String, Object> settings = new HashMap<>(admin.enforcerSettings("a", dir.resolve("state")));
        settings.putAll(broker.client(ENFORCER));
        assertEquals(broker.client(SecureBroker.ADMIN).keySet(), broker.client(ENFORCER).keySet(),
                "the enforcer's credentials replace every one of the administrator's");
        Path config = write(dir.resolve("enforcer.properties"), settings);
        Path logging = logEverythingAtInfo(dir.resolve("logback-info.xml"));
        StringBuilder output = new StringBuilder();
        Map<String, Object> gateway = broker.client(GATEWAY);
        try (QuotaClient client = new QuotaClient(gateway, QuotaClient.Options.builder()
                .requestsTopic(admin.topics().requests().name()).replyTopic(admin.topics().replies().name())
                .replyPartition(0).timeout(Duration.ofSeconds(10)).failurePolicy(QuotaClient.FailurePolicy.FAIL_CLOSED)
                .build(), Clock.systemUTC());
             AsyncQuotaClient async = new AsyncQuotaClient(gateway, admin.topics().requests().name(),
                     admin.topics().blocks().name(), Clock.systemUTC())) {
            assertTrue(client.awaitReady(WAIT), "the gateway's client reads its replies");
            assertTrue(async.awaitReady(WAIT), "the gateway's async client reads the blocks");
            try (JarProcess enforcer = startEnforcer(dir.resolve("enforcer.log"), logging, config)) {
                Decision decision = awaitDecidedOnBasic(client);
                assertTrue(decision.allowed(), "allowed on plan basic: " + decision);
                new KeyCommandClient(broker.client(OPERATOR), admin.topics())
                        .send(KeyCommand.block("k1", Instant.now().plus(Duration.ofHours(1))).audited("c-1", OPERATOR, "test"));
                TestCluster.awaitCondition("the gateway sees the operator's block of k1", () -> async.blockOf("k1").isPresent(),
                        WAIT);
                output.append(stop(enforcer));
            }
            // Restarted, it finds its group, internal topics and state: the startup check and Kafka Streams pass as well.
            try (JarProcess restarted = startEnforcer(dir.resolve("restarted.log"), logging, config)) {
                Decision decision = awaitDecidedOnBasic(client);
                assertEquals(Reason.BLOCKED, decision.reason(), "the block holds across the restart: " + decision);
                output.append(stop(restarted));
            }
        }
        assertTrue(operator.listPlans().containsKey("basic"), "the operator lists the plan from the catalog");
        assertFalse(output.toString().contains("KIP-890"), "no transactions v2 warning on a 4.4 cluster");
        return output.toString();
    }

    private static JarProcess startEnforcer(Path log, Path logging, Path config) {
        JarProcess enforcer = JarProcess.java(log, Map.of(), "-Dlogback.configurationFile=" + logging, "-jar",
                JarProcess.JAR.toString(), "run", "--config", config.toString());
        assertTrue(enforcer.awaitOutput("quota-enforcer ready", WAIT), "the enforcer started:\n" + enforcer.output());
        return enforcer;
    }

    private static String stop(JarProcess enforcer) {
        enforcer.terminate();
        assertTrue(enforcer.awaitExit(WAIT).isPresent(), "the enforcer stopped on SIGTERM");
        return enforcer.output();
    }

    /** Every binding {@code acls create} made for the three principals of this test's topics and application. */
    static List<AclBinding> bindings(TestCluster cluster) {
        AclMatrix matrix = AclMatrix.of(cluster.prefix(), cluster.applicationId());
        List<AclBinding> bindings = new ArrayList<>();
        matrix.entries(AclMatrix.Role.ENFORCER).forEach(entry -> bindings.add(entry.binding("User:" + ENFORCER)));
        matrix.entries(AclMatrix.Role.GATEWAY).forEach(entry -> bindings.add(entry.binding("User:" + GATEWAY)));
        matrix.entries(AclMatrix.Role.OPERATOR).forEach(entry -> bindings.add(entry.binding("User:" + OPERATOR)));
        return bindings;
    }

    /**
     * Checks until one is decided on plan basic: the enforcer fills its catalogs after it starts, so the
     * first checks may find the key unknown.
     */
    private static Decision awaitDecidedOnBasic(QuotaClient client) throws InterruptedException {
        AtomicReference<Decision> decided = new AtomicReference<>();
        TestCluster.awaitCondition("a decision on plan basic", () -> {
            try {
                GatewayDecision answer = client.check("k1", 1, UUID.randomUUID().toString()).get(20, TimeUnit.SECONDS);
                // The enforcer's own validators load the plan and the assignment into their catalogs, in either
                // order: until both are there, the key is on plan basic but the plan is not yet known.
                if (!answer.byFailurePolicy() && "basic".equals(answer.decision().plan())
                        && answer.decision().reason() != Reason.UNKNOWN_PLAN) {
                    decided.set(answer.decision());
                }
                return decided.get() != null;
            } catch (ExecutionException | TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }, WAIT);
        return decided.get();
    }

    /** Asserts that none of the secrets appears in the output, and that Kafka's clients logged their configs hidden. */
    static void assertNoSecret(String output, List<String> secrets, String hiddenSetting) {
        assertTrue(output.contains(hiddenSetting + " = [hidden]"), "Kafka's clients logged their configs, " + hiddenSetting
                + " hidden: the log is the one to search");
        for (String secret : secrets) {
            assertFalse(secret.isBlank(), "a secret to look for");
            List<String> lines = output.lines().filter(line -> line.contains(secret)).toList();
            assertEquals(List.of(), lines.stream().map(line -> line.replace(secret, "<SECRET>")).toList(),
                    "log lines holding a secret");
        }
        assertFalse(output.contains("PRIVATE KEY"), "no PEM key in the log");
    }

    /** Writes settings as a properties file, as an operator's --config file would hold them. */
    static Path write(Path file, Map<String, Object> settings) {
        Properties properties = new Properties();
        settings.forEach((key, value) -> properties.setProperty(key, String.valueOf(value)));
        try (Writer writer = Files.newBufferedWriter(file)) {
            properties.store(writer, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Logback settings logging every logger at INFO, Kafka's config dumps included (the jar's own keep Kafka at WARN). */
    private static Path logEverythingAtInfo(Path file) {
        try {
            return Files.writeString(file, """
                    <configuration>
                      <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
                        <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
                      </appender>
                      <root level="INFO"><appender-ref ref="STDOUT"/></root>
                    </configuration>
                    """);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

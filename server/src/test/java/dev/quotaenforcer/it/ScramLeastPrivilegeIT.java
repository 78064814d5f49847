package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.admin.AclMatrix;
import dev.quotaenforcer.topology.QuotaTopology;
import dev.quotaenforcer.topology.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On a SASL_SSL (SCRAM-SHA-512) broker with an authorizer: each principal does its job with its ACLs, and a gateway nothing more. */
class ScramLeastPrivilegeIT {

    @TempDir
    static Path dir;

    private static SecureBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = SecureBroker.start(SecureBroker.Variant.SCRAM, dir.resolve("broker"), LeastPrivilegeRun.ENFORCER,
                LeastPrivilegeRun.GATEWAY, LeastPrivilegeRun.OPERATOR);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void enforcerFromTheJarDecidesWithExactlyItsAclsAndLogsNoPasswordOrKey(@TempDir Path work) throws Exception {
        String output = LeastPrivilegeRun.run(broker, work, "scramRun");
        LeastPrivilegeRun.assertNoSecret(output, broker.secrets(LeastPrivilegeRun.ENFORCER), SaslConfigs.SASL_JAAS_CONFIG);
    }

    @Test
    void enforcerWithAWrongPasswordExitsNamingTheAuthenticationFailureButNoPassword(@TempDir Path work) {
        TestCluster cluster = new TestCluster(broker.client(SecureBroker.ADMIN), "wrongPassword");
        Map<String, Object> settings = new HashMap<>(cluster.enforcerSettings("a", work.resolve("state")));
        settings.putAll(broker.client(LeastPrivilegeRun.ENFORCER));
        String wrong = UUID.randomUUID().toString().replace("-", "");
        settings.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"" + LeastPrivilegeRun.ENFORCER + "\" password=\"" + wrong + "\";");
        Path config = LeastPrivilegeRun.write(work.resolve("enforcer.properties"), settings);
        JarProcess.Result result = JarProcess.run(List.of(JarProcess.JAVA,
                "-jar", JarProcess.JAR.toString(), "run", "--config", config.toString()), work.resolve("enforcer.log"), Map.of(),
                null, Duration.ofSeconds(90));

        assertEquals(2, result.status(), "exit status of a start that cannot authenticate");
        assertTrue(result.output().contains("Authentication failed"), "says why: " + result.output().replace(wrong, "<SECRET>"));
        List<String> secrets = new ArrayList<>(broker.secrets(LeastPrivilegeRun.ENFORCER));
        secrets.add(wrong);
        for (String secret : secrets) {
            assertFalse(result.output().contains(secret), "no password in the output");
        }
    }

    @Test
    void gatewayIsRefusedWritingCommandsPlansAssignmentsCatalogsBlocksRepliesAndInternalTopics() throws Exception {
        TestCluster cluster = new TestCluster(broker.client(SecureBroker.ADMIN), "gatewayRefused");
        cluster.createTopics(1);
        // Kafka Streams' names for the re-keyed requests and the keys' state, created as an earlier run would have.
        String repartition = cluster.applicationId() + "-" + Topics.REKEYED_REQUESTS + "-repartition";
        String changelog = cluster.applicationId() + "-" + QuotaTopology.STATE_STORE + "-changelog";
        try (Admin admin = Admin.create(broker.client(SecureBroker.ADMIN))) {
            admin.createTopics(List.of(new NewTopic(repartition, 1, (short) 1), new NewTopic(changelog, 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
        List<AclBinding> gatewayAcls = new ArrayList<>();
        AclMatrix.of(cluster.prefix(), cluster.applicationId()).entries(AclMatrix.Role.GATEWAY)
                .forEach(entry -> gatewayAcls.add(entry.binding("User:" + LeastPrivilegeRun.GATEWAY)));
        broker.grant(gatewayAcls);

        Map<String, Object> settings = new HashMap<>(broker.client(LeastPrivilegeRun.GATEWAY));
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        Map<String, String> forbidden = new LinkedHashMap<>();
        forbidden.put("commands", cluster.topics().commands().name());
        forbidden.put("plans", cluster.topics().plans().name());
        forbidden.put("key assignments", cluster.topics().apiKeys().name());
        forbidden.put("plan catalog", cluster.topics().planCatalog().name());
        forbidden.put("key catalog", cluster.topics().keyCatalog().name());
        forbidden.put("blocks", cluster.topics().blocks().name());
        forbidden.put("decisions", cluster.topics().decisions().name());
        forbidden.put("replies", cluster.topics().replies().name());
        forbidden.put("repartition topic", repartition);
        forbidden.put("changelog topic", changelog);
        try (KafkaProducer<byte[], byte[]> gateway = new KafkaProducer<>(settings, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            // The control: the one topic a gateway writes takes its record.
            RecordMetadata request = gateway.send(TestCluster.request(cluster.topics(), "k1", "r-1", 1, null)).get(30, TimeUnit.SECONDS);
            assertEquals(cluster.topics().requests().name(), request.topic());
            for (Map.Entry<String, String> topic : forbidden.entrySet()) {
                Future<RecordMetadata> sent = gateway.send(new ProducerRecord<>(topic.getValue(), TestCluster.bytes("k1"),
                        TestCluster.bytes("{\"forged\": true}")));
                ExecutionException refused = assertThrows(ExecutionException.class, () -> sent.get(30, TimeUnit.SECONDS),
                        "the gateway may not write the " + topic.getKey() + " topic " + topic.getValue());
                assertInstanceOf(TopicAuthorizationException.class, refused.getCause(), topic.getKey() + ": " + refused.getCause());
            }
        }
    }
}

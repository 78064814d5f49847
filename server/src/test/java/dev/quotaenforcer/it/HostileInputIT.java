package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.runtime.Enforcer;
import dev.quotaenforcer.topology.DeadLetterExceptionHandler;
import dev.quotaenforcer.topology.Topics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records that stopped the enforcer on the real broker, or would: a correlation id too large to echo,
 * bytes no serde reads on its own re-keying topic, and outputs a topic would refuse. Each is answered,
 * dead-lettered with the reason or refused at startup, the stream stays RUNNING, and the victim key's
 * count is exactly its valid requests'.
 */
@ExtendWith(KafkaBroker.class)
class HostileInputIT {

    @TempDir
    Path stateDir;

    @Test
    void aRequestAskingForAReplyWithA12MegabyteCorrelationIdIsAnsweredInvalidAndTheStreamGoesOn(TestCluster cluster)
            throws Exception {
        try (Enforcer enforcer = started(cluster, 1)) {
            ProducerRecord<byte[], byte[]> request = TestCluster.request(cluster.topics(), "k-1", "r-big", 1, null);
            request.headers().add(ReplyAddress.TOPIC_HEADER, TestCluster.bytes(cluster.topics().replies().name()));
            request.headers().add(ReplyAddress.CORRELATION_HEADER, new byte[1_200_000]);
            cluster.send(List.of(request, TestCluster.request(cluster.topics(), "victim", "v-1", 1, null)));

            List<Decision> decisions = cluster.awaitDecisions(2);
            assertEquals(Reason.INVALID_REQUEST, byId(decisions, "r-big").reason());
            assertEquals(99, byId(decisions, "v-1").remaining());
            assertEquals("INVALID_HEADER", header(cluster.awaitRecords(cluster.topics().deadLetter(), 1).get(0), "dlq.error"));
            assertRunning(enforcer);
        }
    }

    @Test
    void bytesNoSerdeReadsOnTheReKeyingTopicAreDeadLetteredWithWhereTheyWereRead(TestCluster cluster) throws Exception {
        try (Enforcer enforcer = started(cluster, 1)) {
            String repartition = cluster.prefix() + "-app-" + Topics.REKEYED_REQUESTS + "-repartition";
            cluster.send(List.of(new ProducerRecord<>(repartition, TestCluster.bytes("victim"), TestCluster.bytes("not json"))));
            cluster.send(List.of(TestCluster.request(cluster.topics(), "victim", "v-1", 1, null)));

            assertEquals(99, cluster.awaitDecisions(1).get(0).remaining());
            ConsumerRecord<byte[], byte[]> letter = cluster.awaitRecords(cluster.topics().deadLetter(), 1).get(0);
            assertEquals(DeadLetterExceptionHandler.UNREADABLE, header(letter, "dlq.error"));
            assertEquals(repartition, header(letter, "dlq.source.topic"));
            assertEquals("0", header(letter, "dlq.source.offset"));
            assertEquals("not json", new String(letter.value(), StandardCharsets.UTF_8));
            assertRunning(enforcer);
        }
    }

    @Test
    void anEnforcerRefusesToStartOnAnOutputTopicThatCannotTakeItsLargestRecord(TestCluster cluster) throws Exception {
        cluster.createTopics(1);
        cluster.alterTopicConfig(cluster.topics().decisions().name(), TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1200");

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> cluster.startEnforcer("a", stateDir).close());

        assertEquals("topic " + cluster.topics().decisions().name() + " has max.message.bytes=1200 but the enforcer writes "
                + "records of up to " + Topics.MAX_OUTPUT_RECORD_BYTES + " bytes there; raise it", refused.getMessage());
    }

    @Test
    void aGatewaysReplyTopicThatCannotTakeADecisionGetsNoReplyAndTheStreamGoesOn(TestCluster cluster) throws Exception {
        cluster.createTopics(1);
        String small = cluster.topics().replies().name() + ".small";
        try (Admin admin = admin(cluster)) {
            admin.createTopics(List.of(new NewTopic(small, 1, (short) 1).configs(Map.of(
                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "200")))).all().get(30, TimeUnit.SECONDS);
        }
        try (Enforcer enforcer = started(cluster, 1)) {
            ProducerRecord<byte[], byte[]> request = TestCluster.request(cluster.topics(), "k-1", "r-small", 1, null);
            request.headers().add(ReplyAddress.TOPIC_HEADER, TestCluster.bytes(small));
            cluster.send(List.of(request, TestCluster.request(cluster.topics(), "victim", "v-1", 1, null)));

            List<Decision> decisions = cluster.awaitDecisions(2);
            assertTrue(byId(decisions, "r-small").allowed(), "decided, on the decisions topic");
            assertEquals(99, byId(decisions, "v-1").remaining());
            assertRunning(enforcer);
        }
    }

    @Test
    void garbageWrittenOntoTheCatalogsDoesNotDisplaceTheValidPlanOrAssignmentNotEvenInAFreshInstancesRestore(
            TestCluster cluster, @TempDir Path secondStateDir) throws Exception {
        // The first instance validates the plan and assignment into the catalogs.
        try (Enforcer first = cluster.startWithBasicPlan(1, stateDir, "victim")) {
            cluster.send(List.of(
                    new ProducerRecord<>(cluster.topics().planCatalog().name(), TestCluster.bytes("basic"), TestCluster.bytes("garbage")),
                    new ProducerRecord<>(cluster.topics().keyCatalog().name(), TestCluster.bytes("victim"), TestCluster.bytes("no plan!"))));
            cluster.send(List.of(TestCluster.request(cluster.topics(), "victim", "v-1", 1, null)));

            Decision decision = cluster.awaitDecisions(1).get(0);
            assertEquals("basic", decision.plan());
            assertEquals(99, decision.remaining(), "the running instance kept the valid plan");
        }

        // A fresh instance loads the catalogs by restoring them, garbage last: the check holds there too.
        try (Enforcer second = cluster.startEnforcer("b", secondStateDir)) {
            cluster.send(List.of(TestCluster.request(cluster.topics(), "victim", "v-2", 1, null)));

            Decision decision = cluster.awaitDecisions(2).get(1);
            assertEquals("basic", decision.plan());
            assertEquals(98, decision.remaining());
            assertRunning(second);
        }
    }

    private static Admin admin(TestCluster cluster) {
        return Admin.create(Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    private Enforcer started(TestCluster cluster, int partitions) throws InterruptedException {
        return cluster.startWithBasicPlan(partitions, stateDir, "k-1", "victim");
    }

    /** Called once a decision after the bad record is read: the stream got past it without failing. */
    private static void assertRunning(Enforcer enforcer) {
        assertFalse(enforcer.failed(), "the enforcer failed");
        assertEquals(KafkaStreams.State.RUNNING, enforcer.streams().state());
    }

    private static Decision byId(List<Decision> decisions, String requestId) {
        return decisions.stream().filter(d -> d.requestId().equals(requestId)).findFirst()
                .orElseThrow(() -> new AssertionError("no decision for " + requestId + " in " + decisions));
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}

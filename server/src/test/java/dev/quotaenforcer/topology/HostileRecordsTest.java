package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static dev.quotaenforcer.topology.EnforcerDriver.bytes;
import static dev.quotaenforcer.topology.EnforcerDriver.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Records built to break the enforcer: headers too large to echo, reply topics outside the reply
 * prefix, and records written straight onto its own re-keying topics. Each gets a clear answer or a
 * dead letter with the reason, and the victim key's count is what its valid requests alone make it.
 */
class HostileRecordsTest {

    static final String VICTIM = "victim";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("free", QuotaTopologyTest.FREE);
        enforcer.assign(VICTIM, "free");
        enforcer.assign("k-1", "free");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void aCorrelationIdTooLargeToEchoIsAnInvalidRequestAnsweredOnTheDecisionsTopic() {
        Headers headers = new RecordHeaders();
        headers.add(ReplyAddress.TOPIC_HEADER, bytes("quota.replies"));
        headers.add(ReplyAddress.CORRELATION_HEADER, new byte[1_200_000]);
        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-big\", \"apiKey\": \"k-1\"}", headers, at(0, 1));

        Decision decision = enforcer.decisions().get(0);
        assertEquals(Reason.INVALID_REQUEST, decision.reason());
        assertEquals(List.of(), enforcer.replies("quota.replies"), "nothing echoes 1.2 MB back");
        TestRecord<byte[], byte[]> letter = enforcer.deadLetters().get(0);
        assertEquals("INVALID_HEADER", header(letter.headers(), DeadLetter.ERROR));
        assertEquals("kafka_correlationId: 1200000 bytes; at most 256 are echoed", header(letter.headers(), DeadLetter.REASON));
        assertEquals(99, enforcer.decide(VICTIM, "v-1", at(0, 2)).remaining(), "the stream goes on");
    }

    @Test
    void aGatewaysOwnHeadersStayBehindSoNoneReachesItsDecision() {
        Headers headers = new RecordHeaders();
        headers.add("x-gateway-trace", bytes("00-4bf92f3577b34da6-00f067aa0ba902b7-01"));
        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-traced\", \"apiKey\": \"k-1\"}", headers, at(0, 1));

        TestRecord<String, Decision> decided = enforcer.decisionRecords().get(0);
        assertTrue(decided.value().allowed());
        assertNull(decided.headers().lastHeader("x-gateway-trace"),
                "copied onto every output, a large header would make records the broker refuses");
    }

    @Test
    void aReplyTopicNameLongerThanKafkaAllowsIsAnInvalidRequest() {
        Headers headers = new RecordHeaders();
        headers.add(ReplyAddress.TOPIC_HEADER, bytes("quota.replies." + "x".repeat(300)));
        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-long\", \"apiKey\": \"k-1\"}", headers, at(0, 1));

        assertEquals(Reason.INVALID_REQUEST, enforcer.decisions().get(0).reason());
        assertEquals("kafka_replyTopic: 314 bytes; a topic name has at most 249",
                header(enforcer.deadLetters().get(0).headers(), DeadLetter.REASON));
    }

    @Test
    void aReplyTopicThatOnlyStartsWithTheRepliesTopicsNameGetsNoReply() {
        Headers headers = new RecordHeaders();
        headers.add(ReplyAddress.TOPIC_HEADER, bytes("quota.repliesX"));
        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-x\", \"apiKey\": \"k-1\"}", headers, at(0, 1));

        assertTrue(enforcer.decisions().get(0).allowed());
        assertEquals(List.of(), enforcer.replies("quota.repliesX"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"requestId\": \"i\", \"apiKey\": \"victim\", \"cost\": 0, \"timestamp\": 1796040000000}",
        "{\"requestId\": \"i\", \"apiKey\": \"victim\", \"cost\": 1000000000000, \"timestamp\": 1796040000000}",
        "{\"requestId\": \"i\", \"apiKey\": \"victim\", \"cost\": 1, \"timestamp\": 253402300799999}",
        "{\"requestId\": \"i\", \"apiKey\": \"victim\", \"cost\": 1, \"timestamp\": -5}",
        "{\"requestId\": \"\", \"apiKey\": \"victim\", \"cost\": 1, \"timestamp\": 1796040000000}",
        "{\"requestId\": \"i\", \"apiKey\": \"victim\", \"cost\": 1, \"timestamp\": 1796040000000, "
                + "\"replyTo\": {\"topic\": \"quota.repliesX\", \"partition\": 0}}",
        "{\"requestId\": \"i\", \"apiKey\": \"victim\", \"cost\": 1, \"timestamp\": 1796040000000, "
                + "\"replyTo\": {\"topic\": \"quota.decisions\", \"partition\": -1}}",
        "{\"requestId\": \"i\", \"apiKey\": \"other-key\", \"cost\": 1, \"timestamp\": 1796040000000}",
        "{\"requestId\": 7}",
        "null"
    })
    void aRecordWrittenStraightOntoTheReKeyingTopicIsCheckedLikePublicInput(String json) {
        enforcer.sendRekeyed(Topics.REKEYED_REQUESTS, VICTIM, bytes(json), at(0, 0));

        assertEquals(List.of(), enforcer.decisions());
        TestRecord<byte[], byte[]> letter = enforcer.deadLetters().get(0);
        assertEquals(RekeyedInputCheck.INVALID_REKEYED, header(letter.headers(), DeadLetter.ERROR));
        assertEquals(99, enforcer.decide(VICTIM, "v-1", at(0, 1)).remaining(), "nothing of it counted");
    }

    @Test
    void aValidRecordOnTheReKeyingTopicIsDecided() {
        enforcer.sendRekeyed(Topics.REKEYED_REQUESTS, VICTIM,
                bytes("{\"requestId\": \"i\", \"apiKey\": \"victim\", \"cost\": 3, \"timestamp\": 1796040000000}"), at(0, 0));

        assertEquals(97, enforcer.decisions().get(0).remaining(), "the check refuses only what the intake would");
        assertEquals(List.of(), enforcer.deadLetters());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"task\": \"evil\", \"usage\": {\"plan\": \"free\", \"hour\": \"2026-11-30T12:00:00Z\", \"activeKeys\": 9,"
                + " \"allowed\": 999, \"denied\": 0, \"keysOverQuota\": 0}}",
        "{\"task\": \"0_1\", \"usage\": {\"plan\": \"other\", \"hour\": \"2026-11-30T12:00:00Z\", \"activeKeys\": 9,"
                + " \"allowed\": 999, \"denied\": 0, \"keysOverQuota\": 0}}",
        "{\"task\": \"0_1\", \"usage\": {\"plan\": \"free\", \"hour\": \"2026-11-30T12:00:00Z\", \"activeKeys\": -9,"
                + " \"allowed\": -999, \"denied\": 0, \"keysOverQuota\": 0}}",
        "{\"task\": \"0_1\"}",
        "null"
    })
    void aShareWrittenStraightOntoThePlanUsageTopicIsRefusedAndThePlanTotalStaysTheCountOfItsDecisions(String json) {
        enforcer.sendRekeyed(Topics.PLAN_USAGE_SHARES.name(), "free@2026-11-30T12:00:00Z", bytes(json), at(0, 0));
        enforcer.burst(VICTIM, "v", 3, at(0, 1));

        PlanUsage total = enforcer.planUsage().get("free@2026-11-30T12:00:00Z");
        assertEquals(1, total.activeKeys());
        assertEquals(3, total.allowed());
    }

    @ParameterizedTest
    @ValueSource(strings = {"garbage", "{\"id\": \"free\"}", "{\"id\": \"other\", \"quota\": {\"limit\": 1}}"})
    void whatIsWrittenStraightOntoThePlanCatalogCannotDisplaceAValidPlan(String json) {
        enforcer.driver.createInputTopic("quota.plan-catalog", Serdes.String().serializer(),
                Serdes.ByteArray().serializer()).pipeInput("free", bytes(json), at(0, 0));

        Decision decision = enforcer.decide(VICTIM, "v-1", at(0, 1));
        assertEquals("free", decision.plan());
        assertEquals(99, decision.remaining(), "decided by the valid plan still in force");
    }

    @ParameterizedTest
    @ValueSource(strings = {"no such plan!", ""})
    void whatIsWrittenStraightOntoTheKeyCatalogCannotDisplaceAValidAssignment(String plan) {
        enforcer.driver.createInputTopic("quota.key-catalog", Serdes.String().serializer(),
                Serdes.String().serializer()).pipeInput(VICTIM, plan, at(0, 0));

        assertEquals("free", enforcer.decide(VICTIM, "v-1", at(0, 1)).plan());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"type\": \"grant\", \"apiKey\": \"victim\", \"policy\": \"hourly\", \"amount\": -5}",
        "{\"type\": \"grant\", \"apiKey\": \"victim\", \"amount\": 5}",
        "{\"type\": \"reset\", \"apiKey\": \"other-key\"}",
        "{\"type\": \"reset\", \"apiKey\": \"\"}"
    })
    void aCommandWrittenStraightOntoTheReKeyingTopicIsCheckedLikePublicInput(String json) {
        enforcer.burst(VICTIM, "v", 5, at(0, 0));
        enforcer.sendRekeyed(Topics.REKEYED_COMMANDS, VICTIM, bytes(json), at(0, 1));

        TestRecord<byte[], byte[]> letter = enforcer.deadLetters().get(0);
        assertEquals(RekeyedInputCheck.INVALID_REKEYED, header(letter.headers(), DeadLetter.ERROR));
        assertEquals(94, enforcer.decide(VICTIM, "v-6", at(0, 2)).remaining(), "no command applied");
    }
}

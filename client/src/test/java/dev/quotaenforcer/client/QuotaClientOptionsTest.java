package dev.quotaenforcer.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** QuotaClient.Options: the builder's defaults, and a rejection naming the option and its value for each bad one. */
class QuotaClientOptionsTest {

    private static QuotaClient.Options.Builder valid() {
        return QuotaClient.Options.builder().replyPartition(3);
    }

    private static String rejection(UnaryOperator<QuotaClient.Options.Builder> change) {
        return assertThrows(IllegalArgumentException.class, () -> change.apply(valid()).build()).getMessage();
    }

    @Test
    void defaultsAreTheDefaultPrefixsTopicsAQuarterSecondFailOpenAndCommittedReplies() {
        QuotaClient.Options options = valid().build();
        assertEquals("quota.requests", options.requestsTopic());
        assertEquals("quota.replies", options.replyTopic());
        assertEquals(3, options.replyPartition());
        assertEquals(Duration.ofMillis(250), options.timeout());
        assertEquals(QuotaClient.FailurePolicy.FAIL_OPEN, options.failurePolicy());
        assertEquals(IsolationLevel.READ_COMMITTED, options.replyIsolation());
    }

    @Test
    void everySetterSetsItsOption() {
        QuotaClient.Options options = QuotaClient.Options.builder().requestsTopic("edge.requests")
                .replyTopic("edge.replies.eu-1").replyPartition(0).timeout(Duration.ofSeconds(2))
                .failurePolicy(QuotaClient.FailurePolicy.FAIL_CLOSED).replyIsolation(IsolationLevel.READ_UNCOMMITTED)
                .build();
        assertEquals("edge.requests", options.requestsTopic());
        assertEquals("edge.replies.eu-1", options.replyTopic());
        assertEquals(0, options.replyPartition());
        assertEquals(Duration.ofSeconds(2), options.timeout());
        assertEquals(QuotaClient.FailurePolicy.FAIL_CLOSED, options.failurePolicy());
        assertEquals(IsolationLevel.READ_UNCOMMITTED, options.replyIsolation());
    }

    @Test
    void buildingLeavesTheBuilderToBuildAgain() {
        QuotaClient.Options.Builder builder = valid();
        QuotaClient.Options first = builder.build();
        QuotaClient.Options second = builder.timeout(Duration.ofSeconds(1)).build();
        assertEquals(Duration.ofMillis(250), first.timeout());
        assertEquals(Duration.ofSeconds(1), second.timeout());
    }

    @Test
    void theReplyPartitionHasNoDefault() {
        assertEquals("replyPartition: not set; give the partition of quota.replies this gateway instance owns",
                assertThrows(IllegalArgumentException.class, () -> QuotaClient.Options.builder().build()).getMessage());
    }

    @Test
    void aNegativeReplyPartitionIsNamed() {
        assertEquals("replyPartition: -1 must be 0 or more", rejection(b -> b.replyPartition(-1)));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "quota requests", "quota/requests", ".", ".."})
    void aRequestsTopicKafkaWouldRefuseIsNamed(String topic) {
        assertEquals("requestsTopic: \"" + topic + "\" is not a topic name; use 1 to 249 letters, digits, '.', '_' or '-'",
                rejection(b -> b.requestsTopic(topic)));
    }

    @Test
    void aTooLongReplyTopicIsNamed() {
        String topic = "r".repeat(250);
        assertEquals("replyTopic: \"" + topic + "\" is not a topic name; use 1 to 249 letters, digits, '.', '_' or '-'",
                rejection(b -> b.replyTopic(topic)));
        assertEquals("r".repeat(249), valid().replyTopic("r".repeat(249)).build().replyTopic());
    }

    @Test
    void missingTopicsAreNamed() {
        assertEquals("requestsTopic: null is not a topic name; use 1 to 249 letters, digits, '.', '_' or '-'",
                rejection(b -> b.requestsTopic(null)));
        assertEquals("replyTopic: null is not a topic name; use 1 to 249 letters, digits, '.', '_' or '-'",
                rejection(b -> b.replyTopic(null)));
    }

    @Test
    void aTimeoutBelowOneMillisecondIsNamed() {
        assertEquals("timeout: PT0S must be at least 1 ms", rejection(b -> b.timeout(Duration.ZERO)));
        assertEquals("timeout: PT-1S must be at least 1 ms", rejection(b -> b.timeout(Duration.ofSeconds(-1))));
        assertEquals("timeout: PT0.0009S must be at least 1 ms", rejection(b -> b.timeout(Duration.ofNanos(900_000))));
        assertEquals(Duration.ofMillis(1), valid().timeout(Duration.ofMillis(1)).build().timeout());
    }

    @Test
    void missingValuesAreNamed() {
        assertEquals("timeout: null; give how long a check waits, e.g. PT0.25S", rejection(b -> b.timeout(null)));
        assertEquals("failurePolicy: null; give FAIL_OPEN or FAIL_CLOSED", rejection(b -> b.failurePolicy(null)));
        assertEquals("replyIsolation: null; give READ_COMMITTED or READ_UNCOMMITTED",
                rejection(b -> b.replyIsolation(null)));
    }
}

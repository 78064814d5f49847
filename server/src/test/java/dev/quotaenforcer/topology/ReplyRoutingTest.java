package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spring Kafka style request-reply: decisions also go to the reply address a request carries. */
class ReplyRoutingTest {

    static final String REPLIES = "quota.replies.gateway-1";
    static final byte[] CORRELATION = {1, 2, 3, 4, 5, 6, 7, 8};

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("free", QuotaTopologyTest.FREE);
        enforcer.assign("k-1", "free");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    private static Headers replyTo(String topic, Integer partition) {
        Headers headers = new RecordHeaders();
        headers.add(ReplyAddress.TOPIC_HEADER, topic.getBytes(StandardCharsets.UTF_8));
        if (partition != null) {
            headers.add(ReplyAddress.PARTITION_HEADER, ByteBuffer.allocate(4).putInt(partition).array());
        }
        headers.add(ReplyAddress.CORRELATION_HEADER, CORRELATION);
        return headers;
    }

    @Test
    void decisionGoesToTheReplyTopicWithTheCorrelationIdEchoed() {
        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-1\", \"apiKey\": \"k-1\"}", replyTo(REPLIES, 0), at(0, 1));

        List<TestRecord<String, Decision>> replies = enforcer.replies(REPLIES);
        assertEquals(1, replies.size());
        assertEquals("r-1", replies.get(0).value().requestId());
        assertTrue(replies.get(0).value().allowed());
        assertArrayEquals(CORRELATION, replies.get(0).headers().lastHeader(ReplyAddress.CORRELATION_HEADER).value());
        List<Decision> decisions = enforcer.decisions();
        assertEquals(List.of("r-1"), decisions.stream().map(Decision::requestId).toList(),
                "the decisions topic still gets every decision");
        assertEquals(decisions.get(0), replies.get(0).value(), "the reply is the decision, field for field");
    }

    @Test
    void answerableInvalidRequestIsAlsoRepliedTo() {
        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-2\", \"apiKey\": \"k-1\", \"cost\": -1}", replyTo(REPLIES, null),
                at(0, 1));

        List<TestRecord<String, Decision>> replies = enforcer.replies(REPLIES);
        assertEquals(1, replies.size());
        assertEquals(Reason.INVALID_REQUEST, replies.get(0).value().reason());
    }

    @Test
    void replyTopicOutsideTheRepliesPrefixIsIgnored() {
        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-3\", \"apiKey\": \"k-1\"}", replyTo("quota.decisions", 0),
                at(0, 1));

        assertEquals(1, enforcer.decisions().size(), "decided as usual, and written to the decisions topic once");
        assertTrue(enforcer.driver.producedTopicNames().stream().noneMatch(t -> t.startsWith("quota.replies")));
    }

    @Test
    void requestWithoutReplyHeadersIsNotRepliedTo() {
        enforcer.send("k-1", "r-4", at(0, 1));

        assertEquals(1, enforcer.decisions().size());
        assertTrue(enforcer.driver.producedTopicNames().stream().noneMatch(t -> t.startsWith("quota.replies")));
    }
}

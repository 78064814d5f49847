package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.plan.PlanParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every record the enforcer writes stays under {@link Topics#MAX_OUTPUT_RECORD_BYTES}, the size each
 * output topic is required to accept: tried with every input at its bound (ids of 256 control
 * characters, each escaped to six bytes; a plan of the most policies with the longest names; the
 * largest correlation id), so no producer can make a record the broker refuses.
 */
class OutputRecordSizeTest {

    @TempDir
    Path stateDir;

    @Test
    void aDecisionItsReplyExceededEventsBlockAndUsageAtEveryInputBoundFitTheOutputLimit() {
        String apiKey = "\u0001".repeat(256);
        String planId = "p".repeat(64);
        try (EnforcerDriver enforcer = new EnforcerDriver(stateDir)) {
            enforcer.plan(planId, widestPlan(planId));
            enforcer.assign(apiKey, planId);
            Headers reply = new RecordHeaders();
            reply.add(ReplyAddress.TOPIC_HEADER, ("quota.replies." + "r".repeat(235)).getBytes(StandardCharsets.UTF_8));
            reply.add(ReplyAddress.CORRELATION_HEADER, new byte[ReplyRouting.MAX_CORRELATION_ID_BYTES]);
            for (String id : List.of("\\u0002", "\\u0003")) {
                String json = "{\"requestId\": \"" + id.repeat(256) + "\", \"apiKey\": \"" + "\\u0001".repeat(256) + "\"}";
                enforcer.sendWithHeaders(apiKey, json, reply, at(0, 0));
            }
            enforcer.driver.advanceWallClockTime(Duration.ofSeconds(2));

            int largest = 0;
            for (String topic : List.of("quota.decisions", "quota.replies." + "r".repeat(235), "quota.exceeded",
                    "quota.blocks", "quota.usage", "quota.plan-usage", "quota.plan-catalog", "quota.key-catalog")) {
                List<TestRecord<byte[], byte[]>> records = enforcer.driver.createOutputTopic(topic,
                        Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer()).readRecordsToList();
                assertTrue(!records.isEmpty(), "nothing written to " + topic);
                for (TestRecord<byte[], byte[]> record : records) {
                    largest = Math.max(largest, size(record));
                }
            }
            System.out.println("largest output record at every input bound: " + largest + " bytes");
            assertTrue(largest < Topics.MAX_OUTPUT_RECORD_BYTES, largest + " bytes");
            assertEquals(List.of(), enforcer.deadLetters());
        }
    }

    /** The most rate limits a plan may have, and a quota, each named with the longest name. */
    private static String widestPlan(String id) {
        StringBuilder json = new StringBuilder("{\"id\": \"" + id + "\", \"rateLimits\": [");
        for (int i = 0; i < PlanParser.MAX_RATE_LIMITS; i++) {
            String name = (i + "-").repeat(64).substring(0, 64);
            json.append(i == 0 ? "" : ", ").append("{\"name\": \"").append(name)
                    .append("\", \"algorithm\": \"sliding-window-log\", \"limit\": 1, \"window\": \"PT").append(i + 1).append("S\"}");
        }
        return json.append("], \"quota\": {\"name\": \"").append("q".repeat(64)).append("\", \"limit\": 1000000000}}").toString();
    }

    private static int size(TestRecord<byte[], byte[]> record) {
        int size = (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
        for (Header header : record.headers()) {
            size += header.key().length() + (header.value() == null ? 0 : header.value().length);
        }
        return size;
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Unreadable request records go to the dead-letter topic with their error and origin, and the stream keeps deciding. */
@ExtendWith(KafkaBroker.class)
class PoisonRecordsIT {

    private static final int TWO_MIB = 2 * 1024 * 1024;
    private static final int DEAD_LETTER_MAX_BYTES = 262144;

    @TempDir
    Path stateDir;

    @Test
    void poisonRecordsAreDeadLetteredWithErrorAndSourceAnsweredWhenPossibleAndTheStreamKeepsDeciding(TestCluster cluster)
            throws Exception {
        cluster.createTopics(3);
        cluster.putPlan("""
                {"id": "basic", "quota": {"name": "hourly", "limit": 100, "window": "PT1H"}}""");
        cluster.assign("k-1", "basic");
        String requests = cluster.topics().requests().name();

        byte[] garbage = {(byte) 0x8f, 0x01, (byte) 0xfa, 0x7f, 0x42, 0x13};
        byte[] costText = TestCluster.bytes("""
                {"requestId": "r-cost", "apiKey": "k-1", "cost": "three", "timestamp": "2026-01-05T12:00:00Z"}""");
        byte[] idNumber = TestCluster.bytes("""
                {"requestId": 7, "apiKey": "k-1", "cost": 1, "timestamp": "2026-01-05T12:00:00Z"}""");
        byte[] array = TestCluster.bytes("""
                [{"requestId": "r-array", "apiKey": "k-1"}]""");
        byte[] huge = hugeRequest();

        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir)) {
            TestCluster.awaitAssignment(enforcer, "k-1", "basic");
            byte[] key = TestCluster.bytes("k-1");
            List<byte[]> poison = Arrays.asList(garbage, costText, idNumber, array, huge, null);
            List<RecordMetadata> sent = cluster.sendAndLocate(poison.stream()
                    .map(value -> new ProducerRecord<>(requests, key, value)).toList());
            cluster.send(List.of(TestCluster.request(cluster.topics(), "k-1", "r-ok", 1, "2026-01-05T12:00:01Z")));

            cluster.awaitRecords(cluster.topics().deadLetter(), poison.size());
            cluster.awaitDecisions(read -> read.stream().anyMatch(d -> d.requestId().equals("r-ok")));
            assertFalse(enforcer.failed());
            assertEquals(KafkaStreams.State.RUNNING, enforcer.streams().state());

            List<ConsumerRecord<byte[], byte[]>> dead = cluster.readAll(cluster.topics().deadLetter());
            assertEquals(poison.size(), dead.size(), "one dead letter per poison record, none for the valid one");
            Map<String, ConsumerRecord<byte[], byte[]>> byOffset = dead.stream()
                    .collect(Collectors.toMap(r -> header(r, "dlq.source.offset"), Function.identity()));
            for (int i = 0; i < poison.size(); i++) {
                ConsumerRecord<byte[], byte[]> letter = byOffset.get(Long.toString(sent.get(i).offset()));
                assertNotNull(letter, "dead letter of poison record " + i + " at offset " + sent.get(i).offset());
                assertArrayEquals(key, letter.key(), "the original key");
                assertEquals(requests, header(letter, "dlq.source.topic"));
                assertEquals(Integer.toString(sent.get(i).partition()), header(letter, "dlq.source.partition"));
                if (poison.get(i) != huge) {
                    assertArrayEquals(poison.get(i), letter.value(), "the original value, whole");
                    assertNull(header(letter, "dlq.truncated"));
                }
            }

            ConsumerRecord<byte[], byte[]> garbageLetter = byOffset.get(Long.toString(sent.get(0).offset()));
            assertEquals("INVALID_JSON", header(garbageLetter, "dlq.error"));
            String garbageReason = header(garbageLetter, "dlq.reason");
            assertTrue(garbageReason.startsWith("not valid JSON: ") && garbageReason.contains("0x8f"), garbageReason);

            ConsumerRecord<byte[], byte[]> costLetter = byOffset.get(Long.toString(sent.get(1).offset()));
            assertEquals("INVALID_FIELD", header(costLetter, "dlq.error"));
            assertEquals("cost: \"three\" must be a whole number from 1 to 1000000", header(costLetter, "dlq.reason"));

            ConsumerRecord<byte[], byte[]> idLetter = byOffset.get(Long.toString(sent.get(2).offset()));
            assertEquals("INVALID_FIELD", header(idLetter, "dlq.error"));
            assertEquals("requestId: 7 must be a string of 1 to 256 characters", header(idLetter, "dlq.reason"));

            ConsumerRecord<byte[], byte[]> arrayLetter = byOffset.get(Long.toString(sent.get(3).offset()));
            assertEquals("INVALID_JSON", header(arrayLetter, "dlq.error"));
            assertEquals("must be a JSON object, got [{\"requestId\":\"r-array\",\"apiKey\":\"k-1\"}]",
                    header(arrayLetter, "dlq.reason"));

            ConsumerRecord<byte[], byte[]> hugeLetter = byOffset.get(Long.toString(sent.get(4).offset()));
            assertEquals("OVERSIZE", header(hugeLetter, "dlq.error"));
            assertEquals("the value is " + TWO_MIB + " bytes; the limit is 65536", header(hugeLetter, "dlq.reason"));
            assertEquals(TWO_MIB + " bytes cut to " + DEAD_LETTER_MAX_BYTES, header(hugeLetter, "dlq.truncated"));
            assertArrayEquals(Arrays.copyOf(huge, DEAD_LETTER_MAX_BYTES), hugeLetter.value(), "the value's first 256 KiB");

            ConsumerRecord<byte[], byte[]> emptyLetter = byOffset.get(Long.toString(sent.get(5).offset()));
            assertEquals("EMPTY", header(emptyLetter, "dlq.error"));
            assertEquals("the record has no value", header(emptyLetter, "dlq.reason"));

            // Only the cost record has a readable request id and API key among the poison.
            List<Decision> decisions = cluster.readAll(cluster.topics().decisions()).stream().map(ConsumerRecord::value).toList();
            Map<String, Decision> byId = decisions.stream().collect(Collectors.toMap(Decision::requestId, Function.identity()));
            assertEquals(List.of("r-cost", "r-ok"), decisions.stream().map(Decision::requestId).sorted().toList(),
                    "decisions: " + decisions);
            Decision invalid = byId.get("r-cost");
            assertEquals(new Decision("r-cost", "k-1", null, false, Reason.INVALID_REQUEST, null, 0, 0, 0, 0, 0,
                    Instant.ofEpochMilli(sent.get(1).timestamp()), Map.of()), invalid);
            Decision ok = byId.get("r-ok");
            assertTrue(ok.allowed());
            assertEquals(Reason.OK, ok.reason());
            assertEquals("basic", ok.plan());
            assertEquals(99, ok.remaining(), "no poison record was counted");
            assertFalse(enforcer.failed());
        }
    }

    /** A well-formed request padded to exactly 2 MiB: over the 64 KiB request limit, under the topic's 4 MiB. */
    private static byte[] hugeRequest() {
        String head = "{\"requestId\": \"r-huge\", \"apiKey\": \"k-1\", \"padding\": \"";
        String tail = "\"}";
        String json = head + "x".repeat(TWO_MIB - head.length() - tail.length()) + tail;
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        assertEquals(TWO_MIB, bytes.length);
        return bytes;
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}

package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static dev.quotaenforcer.topology.EnforcerDriver.bytes;
import static dev.quotaenforcer.topology.EnforcerDriver.header;
import static dev.quotaenforcer.topology.EnforcerDriver.text;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Malformed input never stops the stream: it goes to the dead-letter topic, answered when possible. */
class DeadLetterTest {

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir, Map.of(EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG, 1024));
        enforcer.plan("free", QuotaTopologyTest.FREE);
        enforcer.assign("k-1", "free");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    private TestRecord<byte[], byte[]> onlyDeadLetter() {
        List<TestRecord<byte[], byte[]>> dead = enforcer.deadLetters();
        assertEquals(1, dead.size(), "dead letters");
        return dead.get(0);
    }

    @Test
    void garbageBytesGoToDeadLetterWithTheirSource() {
        byte[] garbage = {(byte) 0xC3, 0x28, 0x00, (byte) 0xFF};
        enforcer.sendBytes(bytes("k-1"), garbage, at(0, 1));

        TestRecord<byte[], byte[]> dead = onlyDeadLetter();
        assertArrayEquals(garbage, dead.value());
        assertEquals("k-1", text(dead.key()));
        assertEquals("INVALID_JSON", header(dead.headers(), "dlq.error"));
        assertEquals("quota.requests", header(dead.headers(), "dlq.source.topic"));
        assertEquals("0", header(dead.headers(), "dlq.source.partition"));
        assertEquals("0", header(dead.headers(), "dlq.source.offset"));
        assertTrue(enforcer.decisions().isEmpty(), "nothing to answer without a request id");
    }

    @Test
    void wrongTypeIsAnsweredWithInvalidRequestAndDeadLettered() {
        enforcer.sendRaw("k-1", "{\"requestId\": \"r-1\", \"apiKey\": \"k-1\", \"cost\": \"three\"}", at(0, 1));

        TestRecord<byte[], byte[]> dead = onlyDeadLetter();
        assertEquals("INVALID_FIELD", header(dead.headers(), "dlq.error"));
        assertEquals("cost: \"three\" must be a whole number from 1 to 1000000", header(dead.headers(), "dlq.reason"));
        List<Decision> decisions = enforcer.decisions();
        assertEquals(1, decisions.size());
        Decision answer = decisions.get(0);
        assertFalse(answer.allowed());
        assertEquals(Reason.INVALID_REQUEST, answer.reason());
        assertEquals("r-1", answer.requestId());
        assertEquals("k-1", answer.apiKey());
        assertEquals(at(0, 1), answer.eventTime());
    }

    @Test
    void negativeAndAbsurdCostsAreInvalid() {
        enforcer.sendRaw("k-1", "{\"requestId\": \"r-1\", \"apiKey\": \"k-1\", \"cost\": -5}", at(0, 1));
        enforcer.sendRaw("k-1", "{\"requestId\": \"r-2\", \"apiKey\": \"k-1\", \"cost\": 99999999999}", at(0, 1));

        assertEquals(2, enforcer.deadLetters().size());
        assertTrue(enforcer.decisions().stream().allMatch(d -> d.reason() == Reason.INVALID_REQUEST));
    }

    @Test
    void missingApiKeyIsDeadLetteredWithoutAnAnswer() {
        enforcer.sendRaw(null, "{\"requestId\": \"r-1\"}", at(0, 1));

        assertEquals("apiKey: is missing", header(onlyDeadLetter().headers(), "dlq.reason"));
        assertTrue(enforcer.decisions().isEmpty());
    }

    @Test
    void oversizeRecordIsDeadLetteredWithItsValueCut() {
        byte[] huge = new byte[2 * 1024 * 1024];
        Arrays.fill(huge, (byte) 'x');
        enforcer.sendBytes(bytes("k-1"), huge, at(0, 1));

        TestRecord<byte[], byte[]> dead = onlyDeadLetter();
        assertEquals("OVERSIZE", header(dead.headers(), "dlq.error"));
        assertEquals(1024, dead.value().length);
        assertEquals("2097152 bytes cut to 1024", header(dead.headers(), "dlq.truncated"));
    }

    @Test
    void emptyValueIsDeadLettered() {
        enforcer.sendBytes(bytes("k-1"), null, at(0, 1));

        assertEquals("EMPTY", header(onlyDeadLetter().headers(), "dlq.error"));
    }

    @Test
    void streamKeepsDecidingAfterPoisonRecords() {
        enforcer.sendRaw("k-1", "not json at all", at(0, 1));
        enforcer.sendRaw("k-1", "[1, 2, 3]", at(0, 2));
        enforcer.sendRaw("k-1", "{\"requestId\": 7, \"apiKey\": \"k-1\"}", at(0, 3));

        assertEquals(3, enforcer.deadLetters().size());
        Decision decision = enforcer.decide("k-1", "good", at(0, 4));
        assertTrue(decision.allowed());
        assertEquals(99, decision.remaining(), "poison records consumed nothing");
        assertNull(enforcer.keyState("7"));
    }
}

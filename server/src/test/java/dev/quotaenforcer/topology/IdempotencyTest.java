package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static dev.quotaenforcer.topology.EnforcerDriver.bytes;
import static dev.quotaenforcer.topology.EnforcerDriver.header;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A request id is an idempotency key per API key within the dedup window; a command id applies once. */
class IdempotencyTest {

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @AfterEach
    void stop() {
        enforcer.close();
    }

    private void start(Map<String, Object> overrides) {
        enforcer = new EnforcerDriver(stateDir, overrides);
        enforcer.plan("free", QuotaTopologyTest.FREE);
        enforcer.plan("tight", QuotaTopologyTest.TIGHT);
        enforcer.assign("k-1", "free");
        enforcer.assign("k-2", "free");
        enforcer.assign("k-t", "tight");
    }

    /** Key k-t (plan tight, 3 a second) spends 12:00:00's three. */
    private void spendTheSecond() {
        assertEquals(3, enforcer.burst("k-t", "t", 3, at(0, 0)));
    }

    @Test
    void aRequestReSentWithItsIdWithinTheWindowGetsTheOriginalDecisionAndIsNotCountedAgain() {
        start(Map.of());
        Decision original = enforcer.decide("k-1", "r-1", at(0, 0));

        assertEquals(original, enforcer.decide("k-1", "r-1", 7, at(0, 59)), "the original, whatever the retry says");

        assertEquals(98, enforcer.decide("k-1", "r-2", at(1, 0)).remaining(), "r-1 counted once");
        assertEquals(2, enforcer.usage().get("k-1@2026-11-30T12:00:00Z").allowed());
    }

    @Test
    void theRetrysReplyGoesWhereTheRetryWaitsWithItsOwnCorrelationId() {
        start(Map.of());
        enforcer.decide("k-1", "r-1", at(0, 0));
        Headers headers = new RecordHeaders();
        headers.add(ReplyAddress.TOPIC_HEADER, bytes("quota.replies.gw-2"));
        headers.add(ReplyAddress.CORRELATION_HEADER, new byte[] {9, 9});

        enforcer.sendWithHeaders("k-1", "{\"requestId\": \"r-1\", \"apiKey\": \"k-1\"}", headers, at(0, 1));

        List<TestRecord<String, Decision>> replies = enforcer.replies("quota.replies.gw-2");
        assertEquals(1, replies.size());
        assertEquals(99, replies.get(0).value().remaining());
        assertArrayEquals(new byte[] {9, 9}, replies.get(0).headers().lastHeader(ReplyAddress.CORRELATION_HEADER).value());
    }

    @Test
    void aDeniedRequestReSentIsDeniedAgainWithoutANewExceededEventOrBlock() {
        start(Map.of());
        spendTheSecond();
        Decision denied = enforcer.decide("k-t", "t-3", at(0, 0));
        assertEquals(1, enforcer.exceeded().size());
        assertEquals(1, enforcer.blocks().size());

        assertEquals(denied, enforcer.decide("k-t", "t-3", at(0, 0)));

        assertEquals(List.of(), enforcer.exceeded());
        assertEquals(List.of(), enforcer.blocks());
        assertEquals(1, enforcer.usage().get("k-t@2026-11-30T12:00:00Z").denied());
    }

    @Test
    void afterTheWindowTheSameIdIsANewRequest() {
        start(Map.of());
        enforcer.decide("k-1", "r-1", at(0, 0));

        assertEquals(98, enforcer.decide("k-1", "r-1", at(1, 1)).remaining(), "61 s later, past the 60 s window");
    }

    @Test
    void theSameIdOfAnotherKeyIsAnotherRequest() {
        start(Map.of());
        enforcer.decide("k-1", "r-1", at(0, 0));

        assertEquals(99, enforcer.decide("k-2", "r-1", at(0, 1)).remaining());
    }

    @Test
    void withAWindowOfZeroEveryRequestIsCounted() {
        start(Map.of(EnforcerConfig.DEDUP_WINDOW_MS_CONFIG, 0));
        enforcer.decide("k-1", "r-1", at(0, 0));

        assertEquals(98, enforcer.decide("k-1", "r-1", at(0, 1)).remaining());
    }

    @Test
    void idsAreRememberedAcrossTheSweepThatForgetsOlderOnes() {
        start(Map.of(EnforcerConfig.EXPIRY_INTERVAL_MS_CONFIG, 1_000));
        enforcer.decide("k-1", "old", at(0, 0));
        enforcer.decide("k-1", "recent", at(2, 0));
        enforcer.decide("k-2", "sweep", at(2, 30));

        assertEquals(99, enforcer.decide("k-1", "recent", at(2, 31)).remaining(), "the original of 12:02, not counted");
        Decision old = enforcer.decide("k-1", "old", at(2, 32));
        assertEquals(98, old.remaining(), "counted afresh: 12:00 is past the window");
        assertEquals(at(2, 32), old.eventTime());
    }

    @Test
    void aCommandReSentWithItsIdAppliesOnce() {
        start(Map.of());
        spendTheSecond();
        String grant = "{\"type\": \"grant\", \"apiKey\": \"k-t\", \"policy\": \"per-second\", \"amount\": 1, \"commandId\": \"c-1\"}";
        enforcer.command("k-t", grant, at(0, 0));
        enforcer.command("k-t", grant, at(0, 0));

        assertEquals(1, enforcer.burst("k-t", "more", 2, at(0, 0)), "one grant of one");
        TestRecord<byte[], byte[]> letter = enforcer.deadLetters().get(0);
        assertEquals("DUPLICATE_COMMAND", header(letter.headers(), DeadLetter.ERROR));
        assertEquals("command c-1 was applied to this key at 2026-11-30T12:00:00Z; a command id applies once",
                header(letter.headers(), DeadLetter.REASON));
    }

    @Test
    void commandsWithoutAnIdApplyEachTime() {
        start(Map.of());
        spendTheSecond();
        String grant = "{\"type\": \"grant\", \"apiKey\": \"k-t\", \"policy\": \"per-second\", \"amount\": 1}";
        enforcer.command("k-t", grant, at(0, 0));
        enforcer.command("k-t", grant, at(0, 0));

        assertEquals(Reason.OK, enforcer.decide("k-t", "more-1", at(0, 0)).reason());
        assertEquals(Reason.OK, enforcer.decide("k-t", "more-2", at(0, 0)).reason());
    }
}

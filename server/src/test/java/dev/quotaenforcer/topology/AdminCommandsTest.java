package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static dev.quotaenforcer.topology.EnforcerDriver.header;
import static dev.quotaenforcer.topology.EnforcerDriver.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin commands on the commands topic, applied by the key's task between the requests around them:
 * decisions change from the next request on, the blocks topic follows, and bad commands are dead-lettered.
 */
class AdminCommandsTest {

    static final String PLAN = """
            {"id": "small",
             "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 10, "window": "PT1M"}],
             "quota": {"name": "hourly", "limit": 3, "window": "PT1H"}}""";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("small", PLAN);
        enforcer.assign("k-1", "small");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    private void useTheQuota() {
        assertEquals(3, enforcer.burst("k-1", "used", 4, at(0, 0)));
    }

    @Test
    void grantTakesEffectBetweenTheRequestsAroundIt() {
        useTheQuota();
        assertFalse(enforcer.decide("k-1", "before", at(1, 0)).allowed());

        enforcer.command("k-1", "{\"type\": \"grant\", \"apiKey\": \"k-1\", \"policy\": \"hourly\", \"amount\": 2}", at(1, 1));

        assertEquals(2, enforcer.burst("k-1", "after", 3, at(1, 2)), "two granted, the third denied again");
        List<TestRecord<String, Block>> blocks = enforcer.blockRecords();
        assertEquals(Reason.QUOTA_EXCEEDED, blocks.get(0).value().reason(), "the first run of denials blocked the key");
        assertEquals("k-1", blocks.get(1).key());
        assertNull(blocks.get(1).value(), "the grant lifted that block");
        assertEquals(Reason.QUOTA_EXCEEDED, blocks.get(2).value().reason(), "the granted quota used up blocks again");
    }

    @Test
    void blockDeniesEveryRequestWithRetryAfterAndUnblockTombstonesTheBlock() {
        assertTrue(enforcer.decide("k-1", "before", at(0, 0)).allowed());

        enforcer.command("k-1", """
                {"type": "block", "apiKey": "k-1", "until": "2026-11-30T12:30:00Z", "reason": "abuse", "issuer": "ops"}""",
                at(0, 1));
        Decision blocked = enforcer.decide("k-1", "blocked", at(10, 0));
        enforcer.command("k-1", "{\"type\": \"unblock\", \"apiKey\": \"k-1\"}", at(10, 1));
        Decision after = enforcer.decide("k-1", "after", at(10, 2));

        assertEquals(Reason.BLOCKED, blocked.reason());
        assertEquals(1200, blocked.retryAfterSeconds());
        assertEquals("1200", blocked.headers().get("Retry-After"));
        assertTrue(after.allowed());
        assertEquals(1, after.remaining(), "the blocked request consumed nothing: 2 of 3 used");
        List<TestRecord<String, Block>> blocks = enforcer.blockRecords();
        assertEquals(2, blocks.size());
        assertEquals(new Block("k-1", "small", Reason.BLOCKED, null, Instant.parse("2026-11-30T12:30:00Z"), 1799),
                blocks.get(0).value());
        assertNull(blocks.get(1).value(), "unblock tombstones the key's block");
    }

    @Test
    void blockWithoutEndIsPublishedWithoutEndAndDeniesWithoutRetryAfter() {
        enforcer.command("k-1", "{\"type\": \"block\", \"apiKey\": \"k-1\"}", at(0, 0));

        Decision blocked = enforcer.decide("k-1", "blocked", at(59, 0));

        assertEquals(Reason.BLOCKED, blocked.reason());
        assertEquals(-1, blocked.retryAfterSeconds());
        assertNull(blocked.headers().get("Retry-After"));
        Block block = enforcer.blocks().get(0);
        assertNull(block.until());
        assertTrue(block.holdsAt(Instant.parse("2100-01-01T00:00:00Z")));
    }

    @Test
    void resetEndsTheDenialRunAndLiftsItsBlock() {
        useTheQuota();

        enforcer.command("k-1", "{\"type\": \"reset\", \"apiKey\": \"k-1\", \"policy\": \"hourly\"}", at(1, 0));

        assertEquals(3, enforcer.burst("k-1", "after", 4, at(1, 1)), "a fresh hourly quota");
        List<TestRecord<String, Block>> blocks = enforcer.blockRecords();
        assertEquals(3, blocks.size());
        assertNull(blocks.get(1).value());
    }

    @Test
    void keylessCommandIsAppliedToTheKeyItNames() {
        enforcer.command(null, "{\"type\": \"block\", \"apiKey\": \"k-1\"}", at(0, 0));

        assertEquals(Reason.BLOCKED, enforcer.decide("k-1", "blocked", at(0, 1)).reason());
    }

    @Test
    void unreadableCommandsAreDeadLetteredAndTheStreamGoesOn() {
        enforcer.command("k-1", "{\"type\": \"block\", \"apiKey\": \"k-1\", \"until\": \"soon\"}", at(0, 0));
        enforcer.command("k-1", "not json", at(0, 1));

        List<TestRecord<byte[], byte[]>> dead = enforcer.deadLetters();
        assertEquals(2, dead.size());
        assertEquals("INVALID_FIELD", header(dead.get(0).headers(), "dlq.error"));
        assertEquals("until: \"soon\" must be an ISO-8601 date-time with offset, e.g. 2026-12-01T00:00:00Z",
                header(dead.get(0).headers(), "dlq.reason"));
        assertEquals(enforcer.topology.topics().commands().name(), header(dead.get(0).headers(), "dlq.source.topic"));
        assertEquals("k-1", text(dead.get(0).key()));
        assertEquals("INVALID_JSON", header(dead.get(1).headers(), "dlq.error"));
        assertTrue(enforcer.decide("k-1", "still-decided", at(0, 2)).allowed());
    }

    @Test
    void commandThatCannotApplyToTheKeysPlanIsDeadLetteredWithTheReason() {
        assertTrue(enforcer.decide("k-1", "before", at(0, 0)).allowed());

        enforcer.command("k-1", "{\"type\": \"grant\", \"apiKey\": \"k-1\", \"policy\": \"daily\", \"amount\": 5}", at(0, 1));

        TestRecord<byte[], byte[]> dead = enforcer.deadLetters().get(0);
        assertEquals("COMMAND_NOT_APPLICABLE", header(dead.headers(), "dlq.error"));
        assertEquals("policy: daily is not a policy of plan small of key k-1 (per-minute, hourly)",
                header(dead.headers(), "dlq.reason"));
        assertEquals("{\"type\":\"grant\",\"apiKey\":\"k-1\",\"policy\":\"daily\",\"amount\":5}", text(dead.value()));
        assertEquals(List.of(), enforcer.blockRecords(), "nothing applied, nothing published");
        assertEquals(1, enforcer.decide("k-1", "after", at(0, 2)).remaining(), "the count is untouched");
    }
}

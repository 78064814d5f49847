package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Reason;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The blocks topic: one block when a key starts being denied, lasting until its Retry-After. */
class BlocksTest {

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("metered", ExceededEventsTest.PLAN);
        enforcer.assign("k-1", "metered");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void aRunOfDenialsBlocksTheKeyOnceUntilItsRetryAfter() {
        enforcer.burst("k-1", "burst", 9, at(0, 0));

        List<Block> blocks = enforcer.blocks();

        assertEquals(1, blocks.size(), "one block for the run, not one per denied request");
        Block block = blocks.get(0);
        assertEquals("k-1", block.apiKey());
        assertEquals("metered", block.plan());
        assertEquals(Reason.RATE_LIMITED, block.reason());
        assertEquals("burst", block.policy());
        assertEquals(1, block.retryAfterSeconds(), "one token back after 1 s");
        assertEquals(at(0, 1), block.until());
    }

    @Test
    void aLapsedBlockGetsATombstoneOnceTheClockPassesItsEndSoTheTopicHoldsActiveBlocksOnly() {
        enforcer.burst("k-1", "burst", 9, at(0, 0));
        assertEquals(1, enforcer.blockRecords().size());

        enforcer.driver.advanceWallClockTime(Duration.ofMillis(500));
        assertEquals(List.of(), enforcer.blockRecords(), "12:00:00.5: still in force until 12:00:01");

        enforcer.driver.advanceWallClockTime(Duration.ofSeconds(1));
        List<TestRecord<String, Block>> lapsed = enforcer.blockRecords();
        assertEquals(1, lapsed.size());
        assertEquals("k-1", lapsed.get(0).key());
        assertNull(lapsed.get(0).value(), "a tombstone");

        enforcer.driver.advanceWallClockTime(Duration.ofSeconds(5));
        assertEquals(List.of(), enforcer.blockRecords(), "one tombstone per lapse");
    }

    @Test
    void anOperatorsBlockWithoutEndIsNeverLifted() {
        enforcer.command("k-1", "{\"type\": \"block\", \"apiKey\": \"k-1\"}", at(0, 0));
        assertEquals(1, enforcer.blockRecords().size());

        enforcer.driver.advanceWallClockTime(Duration.ofDays(400));

        assertEquals(List.of(), enforcer.blockRecords());
    }

    @Test
    void aNewRunAfterAnAdmissionBlocksAgain() {
        enforcer.burst("k-1", "first", 6, at(0, 0));
        enforcer.burst("k-1", "second", 3, at(0, 2));

        assertEquals(List.of(at(0, 1), at(0, 3)), enforcer.blocks().stream().map(Block::until).toList());
    }

    @Test
    void exhaustedQuotaBlocksUntilTheHourEnds() {
        for (int minute = 0; minute < 13; minute++) {
            enforcer.send("k-1", "m" + minute, at(minute, 0));
        }

        List<Block> blocks = enforcer.blocks();
        assertEquals(1, blocks.size());
        assertEquals(Reason.QUOTA_EXCEEDED, blocks.get(0).reason());
        assertEquals(Instant.parse("2026-11-30T13:00:00Z"), blocks.get(0).until());
    }

    @Test
    void aCostNoPolicyCanAdmitBlocksNothing() {
        enforcer.send("k-1", "huge", 100, at(0, 0));

        assertEquals(List.of(), enforcer.blocks());
    }
}

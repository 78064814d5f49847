package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.NOON;
import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.io.TempDir;

/** Usage per API key and calendar hour on the usage topic, counted from the decisions. */
class UsageTest {

    static final String SMALL = """
            {"id": "small", "quota": {"name": "hourly", "limit": 5, "window": "PT1H"}}""";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("small", SMALL);
        enforcer.assign("k-1", "small");
        enforcer.assign("k-2", "small");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void countsAllowedAndDeniedRequestsAndCostPerKeyAndCalendarHour() {
        enforcer.send("k-1", "a", 2, at(10, 0));
        enforcer.send("k-1", "b", 2, at(20, 0));
        enforcer.send("k-1", "c", 2, at(30, 0));
        enforcer.send("k-2", "d", 1, at(40, 0));
        enforcer.send("k-1", "e", 3, at(61, 0));

        Map<String, KeyUsage> usage = enforcer.usage();

        Instant noon = Instant.parse("2026-11-30T12:00:00Z");
        Instant one = Instant.parse("2026-11-30T13:00:00Z");
        assertEquals(new KeyUsage("k-1", "small", 5, noon, 2, 1, 4, 2, 1), usage.get("k-1@" + noon));
        assertEquals(new KeyUsage("k-2", "small", 5, noon, 1, 0, 1, 0, 0), usage.get("k-2@" + noon));
        assertEquals(new KeyUsage("k-1", "small", 5, one, 1, 0, 3, 0, 0), usage.get("k-1@" + one), "a new hour, a new count");
        assertEquals(3, usage.size());
    }

    @Test
    void writesUsageAnIntervalAfterTheTaskStartsThenOncePerIntervalKeepingItsPhase() {
        enforcer.send("k-1", "a", 1, at(10, 0));
        assertEquals(0, usageWrittenAfter(999), "nothing before the first interval ends");
        assertEquals(1, usageWrittenAfter(1), "written as it ends");
        enforcer.send("k-1", "b", 1, at(10, 1));
        assertEquals(0, usageWrittenAfter(999), "the next write waits a whole interval");
        assertEquals(1, usageWrittenAfter(1));
        enforcer.send("k-1", "c", 1, at(10, 2));
        assertEquals(1, usageWrittenAfter(3_500), "a thread held up for intervals writes once");
        enforcer.send("k-1", "d", 1, at(10, 3));
        assertEquals(0, usageWrittenAfter(499), "and keeps its phase: the next write is on the whole second");
        assertEquals(1, usageWrittenAfter(1));
    }

    /** How many usage records were written while the wall clock moved {@code ms} on. */
    private int usageWrittenAfter(long ms) {
        enforcer.driver.advanceWallClockTime(Duration.ofMillis(ms));
        return enforcer.usageWritten().size();
    }

    @Test
    void sumsEachPlanPerHourWithoutCountingAKeysUpdatesTwice() {
        enforcer.send("k-1", "a", 2, at(10, 0));
        enforcer.send("k-1", "b", 2, at(20, 0));
        enforcer.send("k-1", "c", 2, at(30, 0));
        enforcer.send("k-2", "d", 1, at(40, 0));

        Instant noon = Instant.parse("2026-11-30T12:00:00Z");
        assertEquals(new PlanUsage("small", noon, 2, 3, 1, 1), enforcer.planUsage().get("small@" + noon),
                "two keys; k-1 ran out of its quota");
    }

    @Test
    void aKeyMovedToAnotherPlanMovesItsHourWithIt() {
        enforcer.plan("big", """
                {"id": "big", "quota": {"name": "hourly", "limit": 500, "window": "PT1H"}}""");
        enforcer.send("k-1", "a", at(10, 0));
        enforcer.assign("k-1", "big");
        enforcer.send("k-1", "b", at(20, 0));

        Map<String, PlanUsage> plans = enforcer.planUsage();
        Instant noon = Instant.parse("2026-11-30T12:00:00Z");
        assertEquals(new PlanUsage("small", noon, 0, 0, 0, 0), plans.get("small@" + noon));
        assertEquals(new PlanUsage("big", noon, 1, 2, 0, 0), plans.get("big@" + noon));
        assertEquals(500, enforcer.usage().get("k-1@" + noon).quota(), "the key's hour carries its new plan's quota");
    }

    @Test
    void unknownKeysAndInvalidRequestsAreNotUsage() {
        enforcer.send("stranger", "x", at(1, 0));
        enforcer.sendRaw("k-1", "{\"requestId\": \"y\", \"apiKey\": \"k-1\", \"cost\": -1}", at(1, 0));

        assertEquals(Map.of(), enforcer.usage());
    }

    @Test
    void aLateRequestCountsInTheHourItWasMadeIn() {
        enforcer.send("k-1", "now", at(62, 0));
        enforcer.send("k-2", "late", at(58, 0));

        assertEquals(1, enforcer.usage().get("k-2@2026-11-30T12:00:00Z").allowed());
    }

    @Test
    void figuresOfAMonthsOldHourAreStampedWithTheTimeTheyAreWrittenSoRetentionKeepsThem() {
        Instant monthAgo = NOON.minus(Duration.ofDays(40));
        enforcer.driver.advanceWallClockTime(Duration.ofMinutes(5));
        enforcer.sendRaw("k-1", "{\"requestId\": \"r\", \"apiKey\": \"k-1\", \"timestamp\": \"" + monthAgo + "\"}", monthAgo);

        List<TestRecord<String, KeyUsage>> usage = enforcer.usageRecords();
        List<TestRecord<String, PlanUsage>> planUsage = enforcer.planUsageRecords();

        assertEquals(monthAgo, usage.get(0).value().hour(), "counted in the hour it was made in");
        // Written at the first usage interval (1 s by default) after the wall clock moved on five minutes.
        Instant written = NOON.plus(Duration.ofMinutes(5)).plus(Duration.ofSeconds(1));
        assertEquals(List.of(written), usage.stream().map(TestRecord::getRecordTime).distinct().toList(),
                "stamped with the wall clock when written, not with the event time 40 days back nor the request's record time");
        assertEquals(List.of(written), planUsage.stream().map(TestRecord::getRecordTime).distinct().toList());
    }
}

package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static dev.quotaenforcer.topology.EnforcerDriver.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task's clock is its newest record timestamp (the broker's append time); nothing is decided more
 * than {@code quota.request.max.lateness.ms} before it, nor before the watermark its idle keys were
 * deleted by. So deleting a key is never seen by a decision, a re-keyed key held back by a failover
 * upstream is not forgotten, and what the bound moves is said in a dead letter.
 */
class LatenessBoundTest {

    @TempDir
    Path stateDir;
    @TempDir
    Path otherStateDir;

    @Test
    void aRequestLaterThanTheBoundIsDecidedAtTheBoundCountedThereAndDeadLettered() {
        try (EnforcerDriver enforcer = started(stateDir, Map.of())) {
            enforcer.send("busy", "b", at(60, 0));
            enforcer.decisions();

            enforcer.sendRaw("k-1", "{\"requestId\": \"old\", \"apiKey\": \"k-1\", \"timestamp\": \"2026-11-30T11:00:00Z\"}",
                    at(60, 0));

            Decision decision = enforcer.decisions().get(0);
            assertTrue(decision.allowed());
            assertEquals(at(55, 0), decision.eventTime(), "13:00, the task's clock, less the 5-minute bound");
            List<TestRecord<byte[], byte[]>> letters = enforcer.deadLetters();
            assertEquals(1, letters.size());
            assertEquals(QuotaProcessor.LATE_REQUEST, header(letters.get(0).headers(), DeadLetter.ERROR));
            assertTrue(header(letters.get(0).headers(), DeadLetter.REASON)
                    .startsWith("event time 2026-11-30T11:00:00Z is 6900000 ms before the lateness bound 2026-11-30T12:55:00Z"),
                    header(letters.get(0).headers(), DeadLetter.REASON));
            assertEquals(1, enforcer.usage().get("k-1@2026-11-30T12:00:00Z").allowed(), "counted in the bound's hour");
        }
    }

    @Test
    void aRequestWithinTheBoundIsDecidedAtItsOwnTimeWithNoDeadLetter() {
        try (EnforcerDriver enforcer = started(stateDir, Map.of())) {
            enforcer.send("busy", "b", at(60, 0));
            enforcer.decisions();

            assertEquals(at(55, 1), enforcer.decide("k-1", "on-time", at(55, 1)).eventTime());
            assertEquals(List.of(), enforcer.deadLetters());
        }
    }

    @Test
    void aReKeyedKeysRecordHeldBackPastTheBoundStillFindsItsSpentQuota() {
        try (EnforcerDriver enforcer = started(stateDir, Map.of())) {
            spendHourlyQuotaReKeyed(enforcer);
            enforcer.send("busy", "b", at(40, 0));
            enforcer.decisions();

            enforcer.sendRekeyed("k-r", "held-back", at(20, 0), at(20, 0));

            Decision decision = enforcer.decisions().get(0);
            assertEquals(Reason.QUOTA_EXCEEDED, decision.reason(), "its 12 of 12 in the noon hour are still counted");
            assertEquals(at(35, 0), decision.eventTime());
            assertEquals(QuotaProcessor.LATE_REQUEST, header(enforcer.deadLetters().get(0).headers(), DeadLetter.ERROR));
        }
    }

    @Test
    void aKeyDeletedWhileItsRecordWasHeldBackIsDecidedAsIfItsStateHadBeenKept() {
        try (EnforcerDriver sweeping = started(stateDir, Map.of());
             EnforcerDriver keeping = started(otherStateDir, Map.of(EnforcerConfig.EXPIRY_INTERVAL_MS_CONFIG, 86_400_000))) {
            for (EnforcerDriver enforcer : List.of(sweeping, keeping)) {
                spendHourlyQuotaReKeyed(enforcer);
                enforcer.send("busy", "b-1", at(100, 0));
                enforcer.send("busy", "b-2", at(120, 0));
                enforcer.decisions();
            }
            assertNull(sweeping.keyState("k-r"), "idle since 13:00, deleted once the watermark passed it");
            assertNotNull(keeping.keyState("k-r"));

            sweeping.sendRekeyed("k-r", "held-back", at(20, 0), at(20, 0));
            keeping.sendRekeyed("k-r", "held-back", at(20, 0), at(20, 0));

            Decision afterDeletion = sweeping.decisions().get(0);
            assertEquals(keeping.decisions().get(0), afterDeletion);
            assertEquals(at(115, 0), afterDeletion.eventTime());
        }
    }

    @Test
    void whateverTheLatenessOfRequestsDeletingIdleKeysAndClosingHoursChangesNoDecisionAndNoUsage() {
        for (long seed = 1; seed <= 25; seed++) {
            try (EnforcerDriver sweeping = started(stateDir.resolve("s" + seed), Map.of(
                         EnforcerConfig.EXPIRY_INTERVAL_MS_CONFIG, 1_000));
                 EnforcerDriver keeping = started(otherStateDir.resolve("k" + seed), Map.of(
                         EnforcerConfig.EXPIRY_INTERVAL_MS_CONFIG, 86_400_000))) {
                List<Decision> swept = new ArrayList<>();
                List<Decision> kept = new ArrayList<>();
                SplittableRandom random = new SplittableRandom(seed);
                long now = at(0, 0).toEpochMilli();
                for (EnforcerDriver enforcer : List.of(sweeping, keeping)) {
                    enforcer.send("k-1", "once", at(0, 0));
                    enforcer.decisions();
                }
                for (int step = 0; step < 400; step++) {
                    now += random.nextInt(60_000);
                    String apiKey = "k-" + (2 + random.nextInt(4));
                    String requestId = "r-" + step;
                    int path = random.nextInt(4);
                    long recordTime = path == 3 ? now - random.nextInt(1_200_000) : now;
                    long eventTime = recordTime - (random.nextBoolean() ? 0 : random.nextInt(600_000));
                    for (EnforcerDriver enforcer : List.of(sweeping, keeping)) {
                        send(enforcer, path, apiKey, requestId, Instant.ofEpochMilli(eventTime), Instant.ofEpochMilli(recordTime));
                    }
                    swept.addAll(sweeping.decisions());
                    kept.addAll(keeping.decisions());
                }
                assertEquals(400, swept.size(), "seed " + seed);
                assertEquals(kept, swept, "seed " + seed);
                assertEquals(keeping.usage(), sweeping.usage(), "seed " + seed);
                assertEquals(keeping.deadLetters().size(), sweeping.deadLetters().size(), "seed " + seed);
                assertNull(sweeping.keyState("k-1"), "seed " + seed + ": keys were deleted along the way");
                assertNotNull(keeping.keyState("k-1"));
            }
        }
    }

    /** Sends a request in place (0), keyless so it is re-keyed (1, 2), or held back on the repartition topic (3). */
    private static void send(EnforcerDriver enforcer, int path, String apiKey, String requestId, Instant eventTime,
                             Instant recordTime) {
        String json = "{\"requestId\": \"" + requestId + "\", \"apiKey\": \"" + apiKey + "\", \"timestamp\": \"" + eventTime
                + "\"}";
        switch (path) {
            case 0 -> enforcer.sendRaw(apiKey, json, recordTime);
            case 3 -> enforcer.sendRekeyed(apiKey, requestId, eventTime, recordTime);
            default -> enforcer.sendRaw(null, json, recordTime);
        }
    }

    /** Key k-r (plan tight: 12 an hour) spends its hour between 12:10 and 12:12 through the re-keying topic. */
    private static void spendHourlyQuotaReKeyed(EnforcerDriver enforcer) {
        for (int i = 0; i < 13; i++) {
            enforcer.sendRaw(null, "{\"requestId\": \"r-" + i + "\", \"apiKey\": \"k-r\"}", at(10, i * 10));
        }
        List<Decision> decisions = enforcer.decisions();
        assertEquals(12, decisions.stream().filter(Decision::allowed).count());
        assertEquals(Reason.QUOTA_EXCEEDED, decisions.get(12).reason());
    }

    private static EnforcerDriver started(Path stateDir, Map<String, Object> overrides) {
        EnforcerDriver enforcer = new EnforcerDriver(stateDir, overrides);
        enforcer.plan("free", QuotaTopologyTest.FREE);
        enforcer.plan("tight", QuotaTopologyTest.TIGHT);
        enforcer.assign("busy", "free");
        enforcer.assign("k-1", "free");
        enforcer.assign("k-r", "tight");
        for (int i = 0; i < 6; i++) {
            enforcer.assign("k-" + i, i % 2 == 0 ? "tight" : "free");
        }
        return enforcer;
    }
}

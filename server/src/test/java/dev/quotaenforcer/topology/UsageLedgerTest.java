package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UsageLedgerTest {

    private static final Instant NOON = Instant.parse("2026-11-30T12:00:00Z");

    private final List<KeyUsage> keyUsages = new ArrayList<>();
    private final List<PlanUsage> planShares = new ArrayList<>();

    @Test
    void writesABusyKeysFigureOncePerIntervalWithEveryDecisionCounted() {
        UsageLedger<String> ledger = new UsageLedger<>("0_1", 0, Long.MIN_VALUE, apiKey -> apiKey);
        KeyEntry entry = KeyEntry.of(null);
        for (int i = 0; i < 50; i++) {
            entry = counted(ledger, entry, usage("k-1", "p", i % 5 != 4, NOON.plusSeconds(i)));
        }

        assertTrue(write(ledger, Long.MIN_VALUE, Map.of("k-1", entry)));

        assertEquals(List.of(new KeyUsage("k-1", "p", 100, NOON, 40, 10, 40, 10, 0)), keyUsages);
        assertEquals(List.of(new PlanUsage("p", NOON, 1, 40, 10, 0)), planShares);
        assertEquals(1, entry.hours().size());
        assertEquals(1, entry.hour(NOON.toEpochMilli()).write(), "the figure goes out with the first write");
        keyUsages.clear();
        planShares.clear();
        assertFalse(write(ledger, Long.MIN_VALUE, Map.of("k-1", entry)));
        assertEquals(List.of(), keyUsages, "an unchanged figure is not written again");
        assertEquals(List.of(), planShares);
    }

    @Test
    void writesOnRestartTheFiguresACrashLeftUnwrittenAndRecomputesThePlanShares() {
        UsageLedger<String> ledger = new UsageLedger<>("0_1", 7, Long.MIN_VALUE, apiKey -> apiKey);
        KeyUsage written = new KeyUsage("k-1", "p", 100, NOON, 3, 0, 3, 0, 0);
        KeyUsage unwritten = new KeyUsage("k-2", "p", 100, NOON, 1, 1, 1, 1, 1);
        Map<String, KeyEntry> entries = Map.of("k-1", KeyEntry.of(null).withHour(KeyEntry.Hour.of(written, 7)),
                "k-2", KeyEntry.of(null).withHour(KeyEntry.Hour.of(unwritten, 8)));
        entries.forEach(ledger::restore);

        write(ledger, Long.MIN_VALUE, entries);

        assertEquals(List.of(unwritten), keyUsages, "only the figure counted after write 7 completed");
        assertEquals(List.of(new PlanUsage("p", NOON, 2, 4, 1, 1)), planShares, "both keys' figures, from the entries");
        assertEquals(8, ledger.lastWrite());
    }

    @Test
    void anHourIsClosedByTheFirstWriteAfterTheWatermarkPassesItsEndAndIsNotReadBackAfterIt() {
        UsageLedger<String> ledger = new UsageLedger<>("0_1", 0, Long.MIN_VALUE, apiKey -> apiKey);
        KeyEntry entry = counted(ledger, KeyEntry.of(null), usage("k-1", "p", true, NOON.plusSeconds(600)));
        long nextHour = NOON.plus(Duration.ofHours(1)).toEpochMilli();
        entry = counted(ledger, entry, usage("k-1", "p", true, Instant.ofEpochMilli(nextHour)));

        write(ledger, nextHour, Map.of("k-1", entry));

        assertEquals(nextHour, ledger.closedBefore(), "noon's hour is closed by this write");
        assertEquals(2, keyUsages.size(), "its last figure went out with it");
        UsageLedger<String> restarted = new UsageLedger<>("0_1", ledger.lastWrite(), ledger.closedBefore(), apiKey -> apiKey);
        restarted.restore("k-1", entry);
        keyUsages.clear();
        planShares.clear();
        write(restarted, nextHour, Map.of("k-1", entry));
        assertEquals(List.of(), keyUsages);
        assertEquals(List.of(new PlanUsage("p", Instant.ofEpochMilli(nextHour), 1, 1, 0, 0)), planShares,
                "only the open hour's share is sent again");
    }

    @Test
    void whateverTheOrderOfDecisionsWritesSweepsAndRestartsTheWrittenFiguresAreTheExactCounts() {
        for (long seed = 1; seed <= 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            keyUsages.clear();
            planShares.clear();
            Map<String, long[]> counted = new HashMap<>();
            Map<String, String> planOf = new HashMap<>();
            // The entries as committed, and the two numbers kept beside them.
            Map<String, KeyEntry> entries = new HashMap<>();
            UsageLedger<String> ledger = new UsageLedger<>("0_1", 0, Long.MIN_VALUE, apiKey -> apiKey);
            long time = NOON.toEpochMilli();
            for (int step = 0; step < 300; step++) {
                int action = random.nextInt(20);
                // The deciding task's watermark trails its decisions: hours close as it passes them.
                long firstOpenHour = Math.floorDiv(time - 300_000, 3_600_000L) * 3_600_000L;
                if (action == 0) {
                    write(ledger, firstOpenHour, entries);
                } else if (action == 1) {
                    ledger = new UsageLedger<>("0_1", ledger.lastWrite(), ledger.closedBefore(), apiKey -> apiKey);
                    for (Map.Entry<String, KeyEntry> entry : entries.entrySet()) {
                        ledger.restore(entry.getKey(), entry.getValue());
                    }
                } else if (action == 2) {
                    // The expiry sweep lets go of the figures of hours a completed write closed.
                    for (Map.Entry<String, KeyEntry> entry : entries.entrySet()) {
                        long closedBefore = ledger.closedBefore();
                        entry.setValue(entry.getValue().withHours(entry.getValue().hours().stream()
                                .filter(hour -> hour.hourMs() >= closedBefore).toList()));
                    }
                } else {
                    time += random.nextInt(20_000);
                    String apiKey = "k-" + random.nextInt(8);
                    String plan = "p-" + random.nextInt(2);
                    boolean allowed = random.nextBoolean();
                    KeyEntry entry = entries.getOrDefault(apiKey, KeyEntry.of(null));
                    entries.put(apiKey, counted(ledger, entry, usage(apiKey, plan, allowed, Instant.ofEpochMilli(time))));
                    String keyHour = apiKey + "@" + Instant.ofEpochMilli(time - Math.floorMod(time, 3_600_000L));
                    counted.computeIfAbsent(keyHour, k -> new long[2])[allowed ? 0 : 1]++;
                    planOf.put(keyHour, plan);
                }
            }
            write(ledger, Long.MIN_VALUE, entries);

            Map<String, KeyUsage> latestKeys = new HashMap<>();
            keyUsages.forEach(usage -> latestKeys.put(QuotaTopology.hourKey(usage.apiKey(), usage.hour()), usage));
            Map<String, PlanUsage> latestShares = new HashMap<>();
            planShares.forEach(share -> latestShares.put(QuotaTopology.hourKey(share.plan(), share.hour()), share));
            Map<String, PlanUsage> expectedShares = new HashMap<>();
            assertEquals(counted.keySet(), latestKeys.keySet(), "seed " + seed);
            for (Map.Entry<String, long[]> entry : counted.entrySet()) {
                KeyUsage usage = latestKeys.get(entry.getKey());
                assertEquals(entry.getValue()[0], usage.allowed(), "seed " + seed + " " + entry.getKey());
                assertEquals(entry.getValue()[1], usage.denied(), "seed " + seed + " " + entry.getKey());
                assertEquals(planOf.get(entry.getKey()), usage.plan(), "seed " + seed + " " + entry.getKey());
                expectedShares.merge(QuotaTopology.hourKey(usage.plan(), usage.hour()),
                        PlanUsage.none(usage.plan(), usage.hour()).with(usage, 1), (a, b) -> a.with(b, 1));
            }
            for (Map.Entry<String, PlanUsage> share : latestShares.entrySet()) {
                PlanUsage none = PlanUsage.none(share.getValue().plan(), share.getValue().hour());
                assertEquals(expectedShares.getOrDefault(share.getKey(), none), share.getValue(), "seed " + seed + " " + share.getKey());
            }
            assertTrue(latestShares.keySet().containsAll(expectedShares.keySet()), "seed " + seed);
        }
    }

    private boolean write(UsageLedger<String> ledger, long firstOpenHour, Map<String, KeyEntry> entries) {
        return ledger.write(firstOpenHour, entries::get, apiKey -> apiKey, keyUsages::add, share -> {
            assertEquals("0_1", share.task());
            planShares.add(share.usage());
        });
    }

    private static KeyUsage usage(String apiKey, String plan, boolean allowed, Instant time) {
        Instant hour = Instant.ofEpochMilli(Math.floorDiv(time.toEpochMilli(), 3_600_000L) * 3_600_000L);
        return allowed ? new KeyUsage(apiKey, plan, 100, hour, 1, 0, 1, 0, 0)
                : new KeyUsage(apiKey, plan, 100, hour, 0, 1, 0, 1, 0);
    }

    /** The entry with one decision counted into it, as the deciding processor writes it. */
    private static KeyEntry counted(UsageLedger<String> ledger, KeyEntry entry, KeyUsage delta) {
        return entry.withHour(ledger.count(delta.apiKey(), entry, delta));
    }
}

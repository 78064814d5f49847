package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.event.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The usage recorder on its own: exact counting, paced writing, restart after a crash, closing hours. */
class UsageRecorderTest {

    static final Instant NOON = Instant.parse("2026-11-30T12:00:00Z");

    MockProcessorContext<String, UsageReport> context;
    KeyValueStore<String, HourlyUsageStore.Entry> store;
    KeyValueStore<String, Long> writes;

    @BeforeEach
    void setUp() {
        context = new MockProcessorContext<>();
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(HourlyUsageStore.NAME), Serdes.String(),
                HourlyUsageStore.ENTRY_SERDE).withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        writes = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(UsageRecorder.WRITES_STORE), Serdes.String(),
                Serdes.Long()).withLoggingDisabled().build();
        writes.init(context.getStateStoreContext(), writes);
        context.addStateStore(writes);
    }

    @Test
    void writesABusyKeysFigureOncePerIntervalWithEveryDecisionCounted() {
        UsageRecorder recorder = started();
        for (int i = 0; i < 50; i++) {
            recorder.process(decided("k-1", i % 5 != 4, NOON.plusSeconds(i)));
        }
        assertEquals(List.of(), context.forwarded(), "nothing is written between intervals");

        write(NOON.plusSeconds(60));

        assertEquals(List.of(new KeyUsage("k-1", "p", 100, NOON, 40, 10, 40, 10, 0)), keyUsages());
        assertEquals(List.of(new PlanUsage("p", NOON, 1, 40, 10, 0)), planShares());
        context.resetForwards();
        write(NOON.plusSeconds(61));
        assertEquals(List.of(), context.forwarded(), "an unchanged figure is not written again");
    }

    @Test
    void writesOnRestartTheFiguresACrashLeftUnwrittenAndRecomputesThePlanShares() {
        KeyUsage written = new KeyUsage("k-1", "p", 100, NOON, 3, 0, 3, 0, 0);
        KeyUsage unwritten = new KeyUsage("k-2", "p", 100, NOON, 1, 1, 1, 1, 1);
        writes.put("last", 7L);
        store.put(HourlyUsageStore.key("k-1", NOON.toEpochMilli()), new HourlyUsageStore.Entry(written, 7));
        store.put(HourlyUsageStore.key("k-2", NOON.toEpochMilli()), new HourlyUsageStore.Entry(unwritten, 8));

        started();
        write(NOON.plusSeconds(60));

        assertEquals(List.of(unwritten), keyUsages(), "only the figure counted after write 7 completed");
        assertEquals(List.of(new PlanUsage("p", NOON, 2, 4, 1, 1)), planShares(), "both keys' figures, from the store");
        assertEquals(8L, writes.get("last"));
    }

    @Test
    void aRestartAfterAWriteWritesNoFigureAgain() {
        UsageRecorder recorder = started();
        recorder.process(decided("k-1", true, NOON));
        write(NOON.plusSeconds(1));
        context.resetForwards();

        started();
        write(NOON.plusSeconds(2));

        assertEquals(List.of(), keyUsages());
        assertEquals(List.of(new PlanUsage("p", NOON, 1, 1, 0, 0)), planShares(), "plan shares are sent again: they replace");
    }

    @Test
    void closesAnHourOnceTheDecidingTasksWatermarkPassesItsEnd() {
        UsageRecorder recorder = started();
        recorder.process(decided("k-1", "p", true, NOON.plusSeconds(600), Long.MIN_VALUE));
        recorder.process(decided("k-2", "p", true, NOON.plus(Duration.ofMinutes(62)), NOON.plus(Duration.ofMinutes(59)).toEpochMilli()));
        write(NOON.plus(Duration.ofMinutes(62)));
        assertEquals(2, store.approximateNumEntries(), "noon's hour is open while the watermark is inside it");

        recorder.process(decided("k-2", "p", true, NOON.plus(Duration.ofMinutes(66)), NOON.plus(Duration.ofMinutes(60)).toEpochMilli()));
        context.resetForwards();
        write(NOON.plus(Duration.ofMinutes(66)));

        assertEquals(1, store.approximateNumEntries(), "noon's hour closed when the watermark reached its end");
        assertNull(store.get(HourlyUsageStore.key("k-1", NOON.toEpochMilli())));
        assertEquals(List.of(new KeyUsage("k-2", "p", 100, NOON.plus(Duration.ofHours(1)), 2, 0, 2, 0, 0)), keyUsages());
    }

    @Test
    void hourPrefixesSortAsTheirHoursAcrossTheEpoch() {
        long[] hours = {Long.MIN_VALUE, -7_200_000L, -3_600_000L, 0L, 3_600_000L, NOON.toEpochMilli(), Long.MAX_VALUE};
        for (int i = 1; i < hours.length; i++) {
            String before = HourlyUsageStore.hourPrefix(hours[i - 1]);
            String after = HourlyUsageStore.hourPrefix(hours[i]);
            assertEquals(-1, Integer.signum(before.compareTo(after)), before + " before " + after);
            assertEquals(16, after.length());
        }
    }

    @Test
    void whateverTheOrderOfDecisionsWritesAndRestartsTheWrittenFiguresAreTheExactCounts() {
        for (long seed = 1; seed <= 200; seed++) {
            setUp();
            SplittableRandom random = new SplittableRandom(seed);
            Map<String, long[]> counted = new HashMap<>();
            Map<String, String> planOf = new HashMap<>();
            UsageRecorder recorder = started();
            long time = NOON.toEpochMilli();
            for (int step = 0; step < 300; step++) {
                int action = random.nextInt(20);
                if (action == 0) {
                    write(Instant.ofEpochMilli(time));
                } else if (action == 1) {
                    // A restart: the stores as they were committed, the recorder's memory gone.
                    recorder = started();
                } else if (action == 2) {
                    // Kafka Streams closes and initializes the same processor again when it revives or resumes a task.
                    recorder.close();
                    recorder.init(context);
                } else {
                    time += random.nextInt(20_000);
                    String apiKey = "k-" + random.nextInt(8);
                    String plan = "p-" + random.nextInt(2);
                    boolean allowed = random.nextBoolean();
                    // The deciding task's watermark trails its decisions: hours close as it passes them.
                    recorder.process(decided(apiKey, plan, allowed, Instant.ofEpochMilli(time), time - 300_000));
                    String keyHour = apiKey + "@" + Instant.ofEpochMilli(time - Math.floorMod(time, 3_600_000L));
                    counted.computeIfAbsent(keyHour, k -> new long[2])[allowed ? 0 : 1]++;
                    planOf.put(keyHour, plan);
                }
            }
            write(Instant.ofEpochMilli(time));

            Map<String, KeyUsage> latestKeys = new HashMap<>();
            Map<String, PlanUsage> latestShares = new HashMap<>();
            for (var forward : context.forwarded()) {
                UsageReport report = forward.record().value();
                if (report.isKeyUsage()) {
                    latestKeys.put(forward.record().key(), report.keyUsage());
                } else {
                    latestShares.put(forward.record().key(), report.planPart().usage());
                }
            }
            Map<String, PlanUsage> expectedShares = new HashMap<>();
            assertEquals(counted.keySet(), latestKeys.keySet(), "seed " + seed);
            for (Map.Entry<String, long[]> entry : counted.entrySet()) {
                KeyUsage usage = latestKeys.get(entry.getKey());
                assertEquals(entry.getValue()[0], usage.allowed(), "seed " + seed + " " + entry.getKey());
                assertEquals(entry.getValue()[1], usage.denied(), "seed " + seed + " " + entry.getKey());
                assertEquals(planOf.get(entry.getKey()), usage.plan(), "seed " + seed + " " + entry.getKey());
                expectedShares.merge(QuotaTopology.hourKey(usage.plan(), usage.hour()), PlanUsage.none(usage.plan(), usage.hour()).with(usage, 1),
                        (a, b) -> a.with(b, 1));
            }
            for (Map.Entry<String, PlanUsage> share : latestShares.entrySet()) {
                PlanUsage none = PlanUsage.none(share.getValue().plan(), share.getValue().hour());
                assertEquals(expectedShares.getOrDefault(share.getKey(), none), share.getValue(), "seed " + seed + " " + share.getKey());
            }
            assertTrue(latestShares.keySet().containsAll(expectedShares.keySet()), "seed " + seed);
        }
    }

    private UsageRecorder started() {
        UsageRecorder recorder = new UsageRecorder(1000);
        recorder.init(context);
        return recorder;
    }

    /** Runs the punctuator of the recorder started last. */
    private void write(Instant now) {
        List<MockProcessorContext.CapturedPunctuator> punctuators = context.scheduledPunctuators();
        punctuators.get(punctuators.size() - 1).getPunctuator().punctuate(now.toEpochMilli());
    }

    private static Record<String, Decided> decided(String apiKey, boolean allowed, Instant time) {
        return decided(apiKey, "p", allowed, time);
    }

    private static Record<String, Decided> decided(String apiKey, String plan, boolean allowed, Instant time) {
        return decided(apiKey, plan, allowed, time, Long.MIN_VALUE);
    }

    private static Record<String, Decided> decided(String apiKey, String plan, boolean allowed, Instant time,
                                                   long sweptTo) {
        Decision decision = new Decision("r", apiKey, plan, allowed, allowed ? Reason.OK : Reason.RATE_LIMITED, "limit",
                10, 0, 0, 0, 0, time, Map.of());
        return new Record<>(apiKey, new Decided(decision, List.of(), null, 1, 100, sweptTo, null), time.toEpochMilli());
    }

    private List<KeyUsage> keyUsages() {
        return context.forwarded().stream().map(forward -> forward.record().value())
                .filter(UsageReport::isKeyUsage).map(UsageReport::keyUsage).toList();
    }

    private List<PlanUsage> planShares() {
        return context.forwarded().stream().map(forward -> forward.record().value())
                .filter(report -> !report.isKeyUsage()).map(report -> report.planPart().usage()).toList();
    }
}

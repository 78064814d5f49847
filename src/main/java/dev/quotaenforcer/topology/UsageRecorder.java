package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Counts each decided request into its key's figure for the calendar hour of its event time, in the
 * task that decided it, and writes the figures that changed once per usage interval: to the usage
 * topic per key, and as the task's share of each plan's hour towards the plan totals.
 *
 * <p>Counting is exact: every decision updates the store, whose changelog commits with the decision.
 * Writing is what the interval paces, so a busy key costs one usage record per interval instead of
 * one per commit. Each figure carries the number of the write due to take it out, and the task keeps
 * the number of its last completed write beside the store, committed with it: on restart, the figures
 * with a later number are the ones a crash kept from being written. Marking them costs one record per
 * write, not one per figure. The plan shares are sums over the store and are recomputed from it when
 * the task starts. An hour is closed (its figures are written one last time and deleted) once it
 * ends by the deciding task's committed watermark, before which that task decides nothing more
 * ({@link QuotaProcessor}): so no decision comes too late for its hour.
 */
final class UsageRecorder implements Processor<String, Decided, String, UsageReport> {

    /** The per-task store of the number of the task's last completed write, under {@link #LAST_WRITE}. */
    static final String WRITES_STORE = "usage-writes";
    private static final String LAST_WRITE = "last";

    private final long intervalMs;
    /** Figures counted since the last write, by store key: what the next write takes out. */
    private final Map<String, KeyUsage> unwritten = new LinkedHashMap<>();
    private final Map<PlanHour, PlanUsage> planShares = new HashMap<>();
    private final Set<PlanHour> changedPlanShares = new LinkedHashSet<>();
    private ProcessorContext<String, UsageReport> context;
    private KeyValueStore<String, HourlyUsageStore.Entry> store;
    private KeyValueStore<String, Long> writes;
    /** The number of the next write: every figure counted now goes out with it. */
    private long nextWrite;
    private String task;
    /** The newest watermark of the deciding task seen: hours ending by then are complete. */
    private long sweptTo = Long.MIN_VALUE;

    UsageRecorder(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    /** Supplies the recorder together with the stores it owns. */
    static ProcessorSupplier<String, Decided, String, UsageReport> supplier(long intervalMs) {
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, Decided, String, UsageReport> get() {
                return new UsageRecorder(intervalMs);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(HourlyUsageStore.builder(),
                        Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(WRITES_STORE), Serdes.String(), Serdes.Long()));
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, UsageReport> context) {
        this.context = context;
        this.store = context.getStateStore(HourlyUsageStore.NAME);
        this.writes = context.getStateStore(WRITES_STORE);
        this.task = context.taskId().toString();
        // Kafka Streams initializes the same processor again when it revives or resumes its task: what it
        // kept in memory then belongs to state that may have been rolled back, so it starts from the store.
        unwritten.clear();
        planShares.clear();
        changedPlanShares.clear();
        sweptTo = Long.MIN_VALUE;
        Long lastWrite = writes.get(LAST_WRITE);
        nextWrite = lastWrite == null ? 1 : lastWrite + 1;
        try (KeyValueIterator<String, HourlyUsageStore.Entry> all = store.all()) {
            while (all.hasNext()) {
                KeyValue<String, HourlyUsageStore.Entry> entry = all.next();
                addToPlanShare(entry.value.usage(), 1);
                if (entry.value.write() >= nextWrite) {
                    unwritten.put(entry.key, entry.value.usage());
                }
            }
        }
        context.schedule(Duration.ofMillis(intervalMs), PunctuationType.WALL_CLOCK_TIME, this::write);
    }

    @Override
    public void process(Record<String, Decided> record) {
        Decided decided = record.value();
        KeyUsage delta = KeyUsage.of(decided.decision(), decided.cost(), decided.quota());
        sweptTo = Math.max(sweptTo, decided.sweptTo());
        long hourMs = delta.hour().toEpochMilli();
        if (closed(hourMs)) {
            // Only a crash under at-least-once can restore deletions here without the watermark there.
            return;
        }
        String key = HourlyUsageStore.key(delta.apiKey(), hourMs);
        KeyUsage before = current(key);
        KeyUsage after = before == null ? delta : before.plus(delta);
        store.put(key, new HourlyUsageStore.Entry(after, nextWrite));
        unwritten.put(key, after);
        if (before != null) {
            addToPlanShare(before, -1);
        }
        addToPlanShare(after, 1);
    }

    /**
     * The key's figure for the hour: a figure counted since the last write is the store's value, kept
     * at hand, so a busy key's store read (a serialized key, a sorted-cache lookup, a decoded value)
     * is paid once per write interval rather than per decision.
     */
    private KeyUsage current(String key) {
        KeyUsage counted = unwritten.get(key);
        if (counted != null) {
            return counted;
        }
        HourlyUsageStore.Entry stored = store.get(key);
        return stored == null ? null : stored.usage();
    }

    private boolean closed(long hourMs) {
        return sweptTo != Long.MIN_VALUE && hourMs < firstOpenHour();
    }

    /** The start of the earliest hour that does not end by the watermark: the hour it falls in. */
    private long firstOpenHour() {
        long hour = HourlyUsageStore.HOUR_MS;
        return Math.floorDiv(sweptTo, hour) * hour;
    }

    private void addToPlanShare(KeyUsage usage, int sign) {
        PlanHour planHour = new PlanHour(usage.plan(), usage.hour().toEpochMilli());
        PlanUsage share = planShares.get(planHour);
        planShares.put(planHour, (share == null ? PlanUsage.none(usage.plan(), usage.hour()) : share).with(usage, sign));
        changedPlanShares.add(planHour);
    }

    /** A plan's hour, as the plan shares are kept while counting (no text formatting per decision). */
    private record PlanHour(String plan, long hourMs) {
    }

    private void write(long now) {
        if (!unwritten.isEmpty()) {
            for (KeyUsage usage : unwritten.values()) {
                context.forward(new Record<>(QuotaTopology.hourKey(usage.apiKey(), usage.hour()), UsageReport.of(usage), now));
            }
            unwritten.clear();
            // An idle task writes nothing, not even its write's number.
            writes.put(LAST_WRITE, nextWrite++);
        }
        for (PlanHour planHour : changedPlanShares) {
            PlanUsage share = planShares.get(planHour);
            context.forward(new Record<>(QuotaTopology.hourKey(share.plan(), share.hour()),
                    UsageReport.of(new UsageReport.PlanUsagePart(task, share)), now));
        }
        changedPlanShares.clear();
        closeHours();
    }

    /** Deletes the figures of closed hours, already written in full: they sort first in the store. */
    private void closeHours() {
        if (sweptTo == Long.MIN_VALUE) {
            return;
        }
        long firstOpenHour = firstOpenHour();
        String firstOpenPrefix = HourlyUsageStore.hourPrefix(firstOpenHour);
        List<String> closed = new ArrayList<>();
        try (KeyValueIterator<String, HourlyUsageStore.Entry> entries = store.range(null, firstOpenPrefix)) {
            while (entries.hasNext()) {
                String key = entries.next().key;
                if (key.compareTo(firstOpenPrefix) < 0) {
                    closed.add(key);
                }
            }
        }
        closed.forEach(store::delete);
        planShares.values().removeIf(share -> share.hour().toEpochMilli() < firstOpenHour);
    }
}

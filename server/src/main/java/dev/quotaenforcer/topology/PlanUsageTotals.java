package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.event.RequestParser;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Sums the tasks' shares of each plan's hour into the plan's total: a task's new share replaces its
 * previous one, so nothing is counted twice. Totals are stamped with the time they are written. A
 * share read back from the repartition topic is checked first: one that is not a task's share of the
 * plan's hour it is keyed by is refused, and the processing exception handler dead-letters it.
 */
final class PlanUsageTotals implements FixedKeyProcessor<String, PlanUsagePart, PlanUsage> {

    /** Each task's latest share, by {@code <plan>@<hour>#<task>}. */
    static final String SHARES_STORE = "plan-usage-shares";

    private static final Pattern TASK_ID = Pattern.compile("\\d{1,9}_\\d{1,9}");

    private FixedKeyProcessorContext<String, PlanUsage> context;
    private KeyValueStore<String, PlanUsage> totals;
    private KeyValueStore<String, PlanUsage> shares;

    static FixedKeyProcessorSupplier<String, PlanUsagePart, PlanUsage> supplier(Serde<PlanUsage> serde) {
        return new FixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<String, PlanUsagePart, PlanUsage> get() {
                return new PlanUsageTotals();
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(
                        Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(QuotaTopology.PLAN_USAGE_STORE),
                                Serdes.String(), serde),
                        Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SHARES_STORE), Serdes.String(), serde));
            }
        };
    }

    @Override
    public void init(FixedKeyProcessorContext<String, PlanUsage> context) {
        this.context = context;
        this.totals = context.getStateStore(QuotaTopology.PLAN_USAGE_STORE);
        this.shares = context.getStateStore(SHARES_STORE);
    }

    @Override
    public void process(FixedKeyRecord<String, PlanUsagePart> record) {
        PlanUsagePart part = record.value();
        String problem = problem(record.key(), part);
        if (problem != null) {
            throw new IllegalArgumentException("not a task's share of a plan's hour: " + problem);
        }
        String shareKey = record.key() + "#" + part.task();
        PlanUsage previous = shares.get(shareKey);
        PlanUsage total = totals.get(record.key());
        PlanUsage updated = (total == null ? PlanUsage.none(part.usage().plan(), part.usage().hour()) : total)
                .with(part.usage(), 1);
        if (previous != null) {
            updated = updated.with(previous, -1);
        }
        shares.put(shareKey, part.usage());
        totals.put(record.key(), updated);
        context.forward(record.withValue(updated).withTimestamp(context.currentSystemTimeMs()));
    }

    private static String problem(String key, PlanUsagePart part) {
        if (part == null || part.usage() == null || part.task() == null) {
            return "a share needs its task and its usage";
        }
        if (!TASK_ID.matcher(part.task()).matches()) {
            return "task " + RequestParser.abbreviate(part.task()) + " is not a task id";
        }
        PlanUsage usage = part.usage();
        if (usage.plan() == null || usage.hour() == null || !QuotaTopology.hourKey(usage.plan(), usage.hour()).equals(key)) {
            return "plan " + usage.plan() + " and hour " + usage.hour() + " are not those of its key " + key;
        }
        if (usage.activeKeys() < 0 || usage.allowed() < 0 || usage.denied() < 0 || usage.keysOverQuota() < 0
                || usage.keysOverQuota() > usage.activeKeys()) {
            return "negative or inconsistent counts " + usage;
        }
        return null;
    }
}

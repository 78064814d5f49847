package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.RequestParser;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.PlanParser;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a catalog topic into its global store, checking each record as the validators that write the
 * topic do: the catalogs are meant to hold only what passed validation, but anyone who can write them
 * directly could otherwise put garbage in place of a valid plan or assignment. Such a record is
 * logged and skipped, so the last valid version stays in force; a deletion always applies.
 */
final class CatalogLoader<V> implements Processor<String, V, Void, Void> {

    /** What is wrong with a catalog record, or null when it may be loaded. */
    interface Check<V> {
        String problem(String key, V value);
    }

    private static final Logger LOG = LoggerFactory.getLogger(CatalogLoader.class);

    private final String storeName;
    private final Check<V> check;
    /** Counted after each write to the store. */
    private final CatalogChanges changes;
    private TimestampedKeyValueStore<String, V> store;

    CatalogLoader(String storeName, Check<V> check, CatalogChanges changes) {
        this.storeName = storeName;
        this.check = check;
        this.changes = changes;
    }

    /** Plans: what {@link PlanParser#parsePlan} accepts, keyed by the plan's id; each write counted in {@code changes}. */
    static CatalogLoader<byte[]> plans(String storeName, CatalogChanges changes) {
        PlanParser parser = new PlanParser();
        return new CatalogLoader<>(storeName, (id, json) -> {
            try {
                parser.parsePlan(id, json);
                return null;
            } catch (InvalidPlanException e) {
                return e.getMessage();
            }
        }, changes);
    }

    /** Key assignments: an API key as requests carry them, to a plan id; each write counted in {@code changes}. */
    static CatalogLoader<String> assignments(String storeName, CatalogChanges changes) {
        return new CatalogLoader<>(storeName, (apiKey, plan) -> apiKey.length() > RequestParser.MAX_ID_LENGTH
                ? "API key of " + apiKey.length() + " characters; at most " + RequestParser.MAX_ID_LENGTH
                : PlanParser.isPlanId(plan) ? null : "plan id " + RequestParser.abbreviate(plan) + " is not a plan's name",
                changes);
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<String, V> record) {
        if (record.key() == null || record.key().isEmpty()) {
            LOG.warn("Skipping a record without a key in catalog {}", storeName);
            return;
        }
        if (record.value() == null) {
            store.delete(record.key());
            changes.changed();
            return;
        }
        String problem = check.problem(record.key(), record.value());
        if (problem != null) {
            LOG.warn("Skipping invalid record {} in catalog {}, keeping what was in force: {}", record.key(), storeName, problem);
            return;
        }
        store.put(record.key(), ValueAndTimestamp.make(record.value(), record.timestamp()));
        changes.changed();
    }
}

package dev.quotaenforcer.http;

import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.PolicyStanding;
import dev.quotaenforcer.engine.QuotaEngine;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.limit.Standing;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import dev.quotaenforcer.plan.PolicyKind;
import dev.quotaenforcer.topology.KeyEntry;
import dev.quotaenforcer.topology.QuotaTopology;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * What this instance's stores say: the catalogs every instance holds whole, and the key states and
 * usage of the partitions it owns. Callers route a key to its owner first (see {@link InstanceRouter}).
 */
final class LocalStores {

    private final KafkaStreams streams;
    private final String defaultPlan;
    private final PlanParser parser = new PlanParser();

    LocalStores(KafkaStreams streams, String defaultPlan) {
        this.streams = streams;
        this.defaultPlan = defaultPlan;
    }

    /** The plan a key is decided on now, or null when it has none (unassigned with no default plan). */
    String planOf(String apiKey) {
        ValueAndTimestamp<String> assigned = this.<String>catalog(QuotaTopology.KEY_CATALOG_STORE).get(apiKey);
        return assigned == null ? defaultPlan : assigned.value();
    }

    /** The plan with this id from the validated catalog, or null when there is none. */
    Plan plan(String id) {
        ValueAndTimestamp<byte[]> json = this.<byte[]>catalog(QuotaTopology.PLAN_CATALOG_STORE).get(id);
        if (json == null) {
            return null;
        }
        try {
            return parser.parsePlan(id, json.value());
        } catch (InvalidPlanException e) {
            // The catalog only holds plans that passed this very parser; a newer format is all this can be.
            throw new IllegalStateException("plan " + id + " in the catalog cannot be read by this version: "
                    + e.getMessage(), e);
        }
    }

    /** Every plan in the catalog as it was published, by id. */
    Map<String, byte[]> planJson() {
        Map<String, byte[]> plans = new TreeMap<>();
        try (KeyValueIterator<String, ValueAndTimestamp<byte[]>> all =
                     this.<byte[]>catalog(QuotaTopology.PLAN_CATALOG_STORE).all()) {
            all.forEachRemaining(entry -> plans.put(entry.key, entry.value.value()));
        }
        return plans;
    }

    /** The stored state of a key owned here, on partition {@code partition}; null when it has none. */
    KeyState keyState(String apiKey, int partition) {
        KeyEntry entry = entries(partition).get(apiKey);
        return entry == null ? null : entry.state();
    }

    /** A key's usage in the hour starting at {@code hour}, or null when it made no counted request in it. */
    KeyUsage keyUsage(String apiKey, Instant hour, int partition) {
        KeyEntry entry = entries(partition).get(apiKey);
        KeyEntry.Hour figure = entry == null ? null : entry.hour(hour.toEpochMilli());
        return figure == null ? null : figure.usage(apiKey);
    }

    /** A plan's figures for the hour starting at {@code hour} (key {@code plan@hour}); null when none. */
    PlanUsage planUsage(String plan, Instant hour, int partition) {
        ReadOnlyKeyValueStore<String, PlanUsage> store = streams.store(StoreQueryParameters
                .fromNameAndType(QuotaTopology.PLAN_USAGE_STORE, QueryableStoreTypes.<String, PlanUsage>keyValueStore())
                .withPartition(partition));
        return store.get(QuotaTopology.hourKey(plan, hour));
    }

    /** The keys of {@code plan} with usage in the hour on this instance's partitions, nearest to quota first. */
    List<TopKey> topKeys(Plan plan, Instant hour, Instant at, int limit) {
        List<TopKey> keys = new ArrayList<>();
        try (KeyValueIterator<String, KeyEntry> entries = entries(null).all()) {
            while (entries.hasNext()) {
                KeyValue<String, KeyEntry> entry = entries.next();
                KeyEntry.Hour figure = entry.value == null ? null : entry.value.hour(hour.toEpochMilli());
                if (figure == null || !plan.id().equals(figure.plan())) {
                    continue;
                }
                KeyUsage usage = figure.usage(entry.key);
                Standing quota = QuotaEngine.standings(plan, entry.value.state(), at.toEpochMilli()).stream()
                        .filter(standing -> standing.policy().kind() == PolicyKind.QUOTA)
                        .map(PolicyStanding::standing)
                        .findFirst().orElse(new Standing(0, 0, 0));
                keys.add(new TopKey(usage.apiKey(), usage.allowed(), usage.denied(), usage.allowedCost(),
                        usage.quotaDenied(), quota.used(), quota.limit()));
            }
        }
        keys.sort(TopKey.NEAREST_TO_QUOTA);
        return keys.size() > limit ? List.copyOf(keys.subList(0, limit)) : keys;
    }

    private ReadOnlyKeyValueStore<String, KeyEntry> entries(Integer partition) {
        StoreQueryParameters<ReadOnlyKeyValueStore<String, KeyEntry>> parameters = StoreQueryParameters
                .fromNameAndType(QuotaTopology.STATE_STORE, QueryableStoreTypes.<String, KeyEntry>keyValueStore());
        return streams.store(partition == null ? parameters : parameters.withPartition(partition));
    }

    private <V> ReadOnlyKeyValueStore<String, ValueAndTimestamp<V>> catalog(String name) {
        return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>timestampedKeyValueStore()));
    }
}

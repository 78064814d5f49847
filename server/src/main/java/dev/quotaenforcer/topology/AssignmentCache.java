package dev.quotaenforcer.topology;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The plan each API key is assigned to, as the key catalog said when its loader last wrote to it
 * ({@link CatalogChanges}), so a request costs a map lookup instead of a read of the catalog's RocksDB
 * store (a JNI call, the key serialized, the value and its timestamp copied back) for every decision.
 */
final class AssignmentCache {

    /**
     * The most keys kept; past it the cache starts again empty. Sized for the keys one task decides for
     * under a steady load, so a flood of new keys costs bounded memory and a large key space only cache misses.
     */
    static final int MAX_KEYS = 32_768;

    /** A key's plan id (null: not assigned) as of {@code checkedAt} catalog changes. */
    private record Entry(String planId, long checkedAt) {
    }

    private final CatalogChanges changes;
    private final Map<String, Entry> entries = new HashMap<>();

    AssignmentCache(CatalogChanges changes) {
        this.changes = changes;
    }

    /**
     * @param catalog the catalog's current plan id for a key, or null when it has none
     * @return the plan id {@code apiKey} is assigned to, or null when it is not assigned
     */
    String planId(String apiKey, Function<String, String> catalog) {
        // Read before the lookup: a write the lookup misses moves the count past it.
        long count = changes.count();
        Entry entry = entries.get(apiKey);
        if (entry != null && entry.checkedAt() == count) {
            return entry.planId();
        }
        if (entry == null && entries.size() >= MAX_KEYS) {
            entries.clear();
        }
        String planId = catalog.apply(apiKey);
        entries.put(apiKey, new Entry(planId, count));
        return planId;
    }
}

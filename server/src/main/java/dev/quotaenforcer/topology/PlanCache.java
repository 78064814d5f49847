package dev.quotaenforcer.topology;

import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Parsed plans by id, read from the plan catalog again only after its loader wrote to it
 * ({@link CatalogChanges}) and parsed again only when the catalog's bytes for the id changed, so a
 * request costs a map lookup rather than a store lookup, a copy and a byte comparison.
 */
final class PlanCache {

    /** The most plan ids kept: keys name plans, and any number of them may be missing from the catalog. */
    private static final int MAX_PLANS = 1_000;

    /** The catalog's bytes for an id (null: none) and their plan (null: none, or unreadable), as of {@code checkedAt} changes. */
    private record Entry(byte[] json, Plan plan, long checkedAt) {
    }

    private final PlanParser parser = new PlanParser();
    private final CatalogChanges changes;
    private final Map<String, Entry> entries = new HashMap<>();

    PlanCache(CatalogChanges changes) {
        this.changes = changes;
    }

    /**
     * @param catalog the catalog's current bytes for an id, already validated on the way in
     * @return the plan, or null when the catalog has none
     * @throws InvalidPlanException only if the catalog holds a plan this version cannot read, once per change of it
     */
    Plan plan(String id, Function<String, byte[]> catalog) throws InvalidPlanException {
        // Read before the lookup: a write the lookup misses moves the count past it.
        long count = changes.count();
        Entry entry = entries.get(id);
        if (entry != null && entry.checkedAt() == count) {
            return entry.plan();
        }
        if (entries.size() >= MAX_PLANS) {
            entries.clear();
        }
        byte[] json = catalog.apply(id);
        Plan plan = null;
        try {
            if (json != null) {
                plan = entry != null && Arrays.equals(entry.json(), json) ? entry.plan() : parser.parsePlan(id, json);
            }
            return plan;
        } finally {
            // Kept when unreadable too: the plan is not parsed again, nor its problem reported, per request.
            entries.put(id, new Entry(json, plan, count));
        }
    }
}

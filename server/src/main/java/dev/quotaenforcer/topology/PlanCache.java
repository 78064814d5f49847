package dev.quotaenforcer.topology;

import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Parsed plans by id, re-parsed only when the catalog's bytes for the id change, so a request
 * costs a byte comparison rather than a JSON parse.
 */
final class PlanCache {

    private record Entry(byte[] json, Plan plan) {
    }

    private final PlanParser parser = new PlanParser();
    private final Map<String, Entry> entries = new HashMap<>();

    /**
     * @param json the catalog's current bytes for the plan, already validated on the way in
     * @throws InvalidPlanException only if the catalog holds a plan this version cannot read
     */
    Plan plan(String id, byte[] json) throws InvalidPlanException {
        Entry entry = entries.get(id);
        if (entry == null || !Arrays.equals(entry.json(), json)) {
            entry = new Entry(json, parser.parsePlan(id, json));
            entries.put(id, entry);
        }
        return entry.plan();
    }
}

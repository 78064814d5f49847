package dev.quotaenforcer.topology;

import java.util.function.Function;

/**
 * The plan each API key is assigned to, as the key catalog said when its loader last wrote to it
 * ({@link CatalogChanges}), noted on the key's slot in its task's store of key entries: a request costs
 * neither a read of the catalog's RocksDB store (a JNI call, the key serialized, the value and its
 * timestamp copied back) nor a lookup of its key in a map of its own, beside the one its entry is held in.
 */
final class AssignmentCache {

    /** A key's plan id (null: not assigned) as of {@code checkedAt} catalog changes. */
    private record Noted(String planId, long checkedAt) {
    }

    private final CatalogChanges changes;

    AssignmentCache(CatalogChanges changes) {
        this.changes = changes;
    }

    /**
     * @param slot    the key's slot, on which what the catalog said is noted
     * @param catalog the catalog's current plan id for a key, or null when it has none
     * @return the plan id the slot's key is assigned to, or null when it is not assigned
     */
    String planId(WriteBackStore.Slot<String> slot, Function<String, String> catalog) {
        // Read before the note: a write the note misses moves the count past it.
        long count = changes.count();
        if (slot.note instanceof Noted noted && noted.checkedAt() == count) {
            return noted.planId();
        }
        String planId = catalog.apply(slot.key());
        slot.note = new Noted(planId, count);
        return planId;
    }
}

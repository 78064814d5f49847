package dev.quotaenforcer.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * The API keys a task's store of key entries may hold, so that the first request of a key (or every
 * request of a flood of unknown keys) skips the store's layers down to RocksDB, whose Java binding
 * reports a missing key by throwing and catching a C++ exception (1.5% of the exactly-once stream
 * thread in the throughput scenario, where one decision in twenty is a key's first). Built from the
 * store's keys as the task starts, it takes in each key the task adds; past the capacity of its newest
 * filter it starts another, twice as large, rather than read the store again, and an expiry sweep,
 * which reads every key anyway, builds it anew without the keys it deleted.
 */
final class StoredKeys {

    private final List<KeyFilter> filters = new ArrayList<>(4);

    /** Keys for a store about to be read into it: sized for twice {@code expected}. */
    StoredKeys(long expected) {
        filters.add(new KeyFilter(2 * expected));
    }

    /** Takes in a key the store did not hold before. */
    void add(String apiKey) {
        KeyFilter newest = filters.get(filters.size() - 1);
        if (newest.full()) {
            newest = new KeyFilter(2 * newest.capacity());
            filters.add(newest);
        }
        newest.add(apiKey);
    }

    /** False only when the store holds no entry of {@code apiKey}. */
    boolean mayHold(String apiKey) {
        for (int i = filters.size() - 1; i >= 0; i--) {
            if (filters.get(i).mightContain(apiKey)) {
                return true;
            }
        }
        return false;
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The keys a task's store may hold: every key taken in, however many more than the first filter was sized for. */
class StoredKeysTest {

    @Test
    void everyKeyTakenInMayBeHeldPastTheFirstFiltersCapacity() {
        StoredKeys keys = new StoredKeys(0);
        int added = 40 * KeyFilter.MIN_CAPACITY;
        for (int i = 0; i < added; i++) {
            keys.add("key-" + i);
        }
        for (int i = 0; i < added; i++) {
            assertTrue(keys.mayHold("key-" + i), "key-" + i);
        }
    }

    @Test
    void fewKeysNeverTakenInMayBeHeld() {
        StoredKeys keys = new StoredKeys(10_000);
        for (int i = 0; i < 50_000; i++) {
            keys.add("key-" + i);
        }
        int mayBeHeld = 0;
        for (int i = 0; i < 100_000; i++) {
            if (keys.mayHold("other-" + i)) {
                mayBeHeld++;
            }
        }
        assertTrue(mayBeHeld < 5_000, mayBeHeld + " of 100000 keys never taken in may be held");
    }
}

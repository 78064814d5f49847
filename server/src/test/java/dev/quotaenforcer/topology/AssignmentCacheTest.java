package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Key assignments kept between catalog changes, against a catalog map that counts its reads. */
class AssignmentCacheTest {

    final CatalogChanges changes = new CatalogChanges();
    final AssignmentCache cache = new AssignmentCache(changes);
    final Map<String, String> catalog = new HashMap<>();
    final Map<String, Integer> reads = new HashMap<>();
    final Function<String, String> reading = key -> {
        reads.merge(key, 1, Integer::sum);
        return catalog.get(key);
    };

    @Test
    void theCatalogIsReadOncePerKeyWhileNothingIsWrittenToIt() {
        catalog.put("key-a", "gold");
        for (int i = 0; i < 3; i++) {
            assertEquals("gold", cache.planId("key-a", reading));
            assertNull(cache.planId("key-b", reading));
        }
        assertEquals(Map.of("key-a", 1, "key-b", 1), reads);
    }

    @Test
    void aWriteToTheCatalogHasEveryKeyReadAgain() {
        catalog.put("key-a", "gold");
        assertEquals("gold", cache.planId("key-a", reading));
        assertNull(cache.planId("key-b", reading));
        catalog.put("key-a", "silver");
        catalog.put("key-b", "gold");
        changes.changed();
        assertEquals("silver", cache.planId("key-a", reading));
        assertEquals("gold", cache.planId("key-b", reading));
        catalog.remove("key-a");
        changes.changed();
        assertNull(cache.planId("key-a", reading));
        assertEquals(Map.of("key-a", 3, "key-b", 2), reads);
    }

    @Test
    void pastItsBoundTheCacheStartsAgainAndStillAnswersFromTheCatalog() {
        for (int i = 0; i <= AssignmentCache.MAX_KEYS; i++) {
            catalog.put("key-" + i, "plan-" + (i % 7));
        }
        for (int i = 0; i <= AssignmentCache.MAX_KEYS; i++) {
            assertEquals("plan-" + (i % 7), cache.planId("key-" + i, reading));
        }
        // The last key came in after the start over; the first was let go by it.
        assertEquals("plan-" + (AssignmentCache.MAX_KEYS % 7), cache.planId("key-" + AssignmentCache.MAX_KEYS, reading));
        assertEquals("plan-0", cache.planId("key-0", reading));
        assertEquals(1, reads.get("key-" + AssignmentCache.MAX_KEYS));
        assertEquals(2, reads.get("key-0"));
    }
}

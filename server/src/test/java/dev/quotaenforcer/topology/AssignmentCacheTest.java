package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Key assignments noted on the keys' slots between catalog changes, against a catalog map that counts its reads. */
class AssignmentCacheTest {

    final CatalogChanges changes = new CatalogChanges();
    final AssignmentCache cache = new AssignmentCache(changes);
    final Map<String, String> catalog = new HashMap<>();
    final Map<String, Integer> reads = new HashMap<>();
    final Function<String, String> reading = key -> {
        reads.merge(key, 1, Integer::sum);
        return catalog.get(key);
    };
    WriteBackStore<String, Long> entries;

    @BeforeEach
    void setUp() {
        entries = WriteBackStore.builder(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("entries"),
                Serdes.String(), Serdes.Long()).withLoggingDisabled()).build();
        entries.init(new MockProcessorContext<>().getStateStoreContext(), entries);
    }

    @AfterEach
    void closeStore() {
        entries.close();
    }

    @Test
    void theCatalogIsReadOncePerKeyWhileNothingIsWrittenToIt() {
        catalog.put("key-a", "gold");
        for (int i = 0; i < 3; i++) {
            assertEquals("gold", planId("key-a"));
            assertNull(planId("key-b"));
        }
        assertEquals(Map.of("key-a", 1, "key-b", 1), reads);
    }

    @Test
    void aWriteToTheCatalogHasEveryKeyReadAgain() {
        catalog.put("key-a", "gold");
        assertEquals("gold", planId("key-a"));
        assertNull(planId("key-b"));
        catalog.put("key-a", "silver");
        catalog.put("key-b", "gold");
        changes.changed();
        assertEquals("silver", planId("key-a"));
        assertEquals("gold", planId("key-b"));
        catalog.remove("key-a");
        changes.changed();
        assertNull(planId("key-a"));
        assertEquals(Map.of("key-a", 3, "key-b", 2), reads);
    }

    @Test
    void aKeyWhoseSlotWasLetGoIsReadFromTheCatalogAgain() {
        catalog.put("key-0", "gold");
        assertEquals("gold", planId("key-0"));
        for (int i = 1; i <= 2 * WriteBackStore.MAX_HELD; i++) {
            planId("key-" + i);
        }

        assertEquals("gold", planId("key-0"));
        assertEquals(2, reads.get("key-0"));
        assertEquals(1, reads.get("key-" + 2 * WriteBackStore.MAX_HELD));
    }

    private String planId(String apiKey) {
        return cache.planId(entries.slot(apiKey), reading);
    }
}

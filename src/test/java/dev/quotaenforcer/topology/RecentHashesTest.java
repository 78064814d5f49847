package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The in-memory filter in front of the remembered requests never forgets an id within the window. */
class RecentHashesTest {

    @Test
    void everyHashAddedWithinTheWindowIsFoundAndMostOlderOnesAreNot() {
        SplittableRandom random = new SplittableRandom(11);
        RequestIds.RecentHashes recent = new RequestIds.RecentHashes(60_000);
        Map<Integer, Long> added = new HashMap<>();
        long now = 1_796_040_000_000L;
        long foundOld = 0;
        long old = 0;
        for (int step = 0; step < 200_000; step++) {
            now += random.nextInt(5);
            int hash = random.nextInt(50_000) - 25_000;
            if (random.nextBoolean()) {
                recent.add(hash, now);
                added.put(hash, now);
            } else if (added.containsKey(hash)) {
                boolean found = recent.mayContain(hash, now);
                if (now - added.get(hash) <= 60_000) {
                    assertTrue(found, "hash " + hash + " added " + (now - added.get(hash)) + " ms ago");
                } else {
                    old++;
                    foundOld += found ? 1 : 0;
                }
            }
        }
        assertTrue(old > 1000, "old lookups tried: " + old);
        assertTrue(foundOld < old, "older than two windows are forgotten: " + foundOld + " of " + old);
    }

    @Test
    void theSetHoldsZeroAndGrowsPastItsFirstSize() {
        RequestIds.IntSet set = new RequestIds.IntSet();
        for (int i = -5_000; i <= 5_000; i++) {
            set.add(i * 7919);
        }
        for (int i = -5_000; i <= 5_000; i++) {
            assertTrue(set.contains(i * 7919));
        }
        assertFalse(set.contains(1));
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A key filter never answers "absent" for a key added, and seldom "may be present" for one never added. */
class KeyFilterTest {

    @Test
    void everyKeyAddedMayBePresentEvenPastItsCapacity() {
        for (long seed = 0; seed < 20; seed++) {
            Random random = new Random(seed);
            KeyFilter filter = new KeyFilter(1_000);
            byte[][] keys = new byte[5_000][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = new byte[random.nextInt(40)];
                random.nextBytes(keys[i]);
                filter.add(keys[i]);
            }
            for (byte[] key : keys) {
                assertTrue(filter.mightContain(key), "seed " + seed);
            }
        }
    }

    @Test
    void fewKeysNeverAddedMayBePresent() {
        assertTrue(mayBePresent(100_000, 50_000) < 0.01, "at half its capacity");
        assertTrue(mayBePresent(100_000, 100_000) < 0.05, "at its capacity");
    }

    /** The share of 100,000 keys never added that a filter for {@code capacity} keys holding {@code added} may hold. */
    private static double mayBePresent(int capacity, int added) {
        KeyFilter filter = new KeyFilter(capacity);
        for (int i = 0; i < added; i++) {
            filter.add(key("key-" + i));
        }
        int mayBePresent = 0;
        for (int i = 0; i < 100_000; i++) {
            if (filter.mightContain(key("other-" + i))) {
                mayBePresent++;
            }
        }
        return mayBePresent / 100_000.0;
    }

    @Test
    void isFullOnlyOnceMoreKeysWereAddedThanItWasSizedFor() {
        KeyFilter filter = new KeyFilter(KeyFilter.MIN_CAPACITY);
        for (int i = 0; i < KeyFilter.MIN_CAPACITY; i++) {
            filter.add(key("key-" + i));
        }
        assertFalse(filter.full());
        filter.add(key("one more"));
        assertTrue(filter.full());
    }

    @Test
    void anEmptyFilterAnswersAbsent() {
        assertFalse(new KeyFilter(0).mightContain(key("anything")));
        assertFalse(new KeyFilter(0).mightContain(new byte[0]));
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Traffic.Step;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Random-traffic properties of the fixed window: one exact counter per epoch-aligned window. */
class FixedWindowPropertiesTest {

    @Test
    void fixedWindowNeverAdmitsMoreThanLimitInOneAlignedWindow() {
        Traffic.forEachCase(Algorithm.FIXED_WINDOW, c -> {
            long windowMs = c.policy().windowMs();
            Map<Long, Long> admittedPerWindow = new HashMap<>();
            for (Step step : c.steps()) {
                if (step.allowed()) {
                    long total = admittedPerWindow.merge(Math.floorDiv(step.time(), windowMs), step.cost(), Long::sum);
                    assertTrue(total <= c.limit(), () -> "admitted " + total + " in one window: " + c.describe(step));
                }
            }
        });
    }

    @Test
    void fixedWindowDeniesOnlyWhenTheRequestWouldExceedTheLimitOfItsWindow() {
        Traffic.forEachCase(Algorithm.FIXED_WINDOW, c -> {
            long windowMs = c.policy().windowMs();
            Map<Long, Long> admittedPerWindow = new HashMap<>();
            for (Step step : c.steps()) {
                long window = Math.floorDiv(step.time(), windowMs);
                long before = admittedPerWindow.getOrDefault(window, 0L);
                assertEquals(before + step.cost() <= c.limit(), step.allowed(),
                        () -> before + " already admitted in this window: " + c.describe(step));
                if (step.allowed()) {
                    admittedPerWindow.merge(window, step.cost(), Long::sum);
                }
            }
        });
    }
}

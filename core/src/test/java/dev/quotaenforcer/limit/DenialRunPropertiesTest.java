package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.limit.Traffic.Step;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** denialStarted marks only the first denial of a run, so a run of denials is reported once. */
class DenialRunPropertiesTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = "FIXED_WINDOW", mode = EnumSource.Mode.EXCLUDE)
    void denialStartedOnlyOnTheFirstDenialAfterAnAdmission(Algorithm algorithm) {
        Traffic.forEachCase(algorithm, c -> {
            // A run is the denials between two admissions (or from the first request), however long.
            boolean inRun = false;
            for (Step step : c.steps()) {
                boolean expected = !step.allowed() && !inRun;
                assertEquals(expected, step.verdict().denialStarted(), () -> c.describe(step));
                inRun = !step.allowed();
            }
        });
    }

    @Test
    void fixedWindowReportsDenialStartedOnlyOnTheFirstDenialOfEachAlignedWindow() {
        Traffic.forEachCase(Algorithm.FIXED_WINDOW, c -> {
            // Admissions do not end a run here: a window that has denied stays reported until it ends.
            Set<Long> windowsThatDenied = new HashSet<>();
            for (Step step : c.steps()) {
                long window = Math.floorDiv(step.time(), c.policy().windowMs());
                boolean expected = !step.allowed() && windowsThatDenied.add(window);
                assertEquals(expected, step.verdict().denialStarted(), () -> c.describe(step));
            }
        });
    }
}

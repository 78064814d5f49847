package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class LatencyFocusTest {

    private static LatencyScenario.Setup setup(String id) {
        return LatencyScenario.SETUPS.stream().filter(setup -> setup.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void measuresEverySetupAndLoadOfAFullRunAndLeavesTheTuningsAndTheOverloadOutOfAQuickOne() {
        LatencyFocus all = LatencyFocus.ALL;

        assertTrue(all.measures(setup("alos-linger100"), false));
        assertFalse(all.measures(setup("alos-linger100"), true));
        assertTrue(all.measures(setup("alos"), true));
        assertTrue(all.measures(20_000, false));
        assertFalse(all.measures(20_000, true));
        assertTrue(all.all());
    }

    @Test
    void measuresOnlyTheSetupsAndLoadsNamedQuickOrNot() {
        LatencyFocus focus = new LatencyFocus(Set.of("alos", "echo-alos", "eos-linger100"), Set.of(5_000), 8);

        assertTrue(focus.measures(setup("echo-alos"), false));
        assertTrue(focus.measures(setup("eos-linger100"), true), "a tuning named is measured in a quick run too");
        assertFalse(focus.measures(setup("eos"), false));
        assertTrue(focus.measures(5_000, true));
        assertFalse(focus.measures(1_000, false));
        assertFalse(focus.all());
    }

    @Test
    void refusesWhatTheScenarioHasNot() {
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of("alos-fast"), Set.of(), 1));
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of(), Set.of(2_000), 1));
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of(), Set.of(), 0));
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of(), Set.of(), LatencyFocus.MOST_ROUNDS + 1));
    }
}

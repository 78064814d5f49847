package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    void takesMoreRoundsWhereAFullRunJudgesARatioAtTheTargetLoad() {
        LatencyFocus all = LatencyFocus.ALL;
        LatencyFocus focus = new LatencyFocus(Set.of("alos", "echo-alos"), Set.of(), 2);

        assertEquals(LatencyFocus.FULL_RUN_TARGET_ROUNDS, all.rounds(LatencyScenario.TARGET_LOAD, 2, false));
        assertEquals(1, all.rounds(1_000, 2, false));
        assertEquals(1, all.rounds(LatencyScenario.TARGET_LOAD, 1, false), "a tuning measured alone has no ratio");
        assertEquals(1, all.rounds(LatencyScenario.TARGET_LOAD, 2, true), "a quick run stays a smoke test");
        assertEquals(2, focus.rounds(LatencyScenario.TARGET_LOAD, 2, false), "a focused run takes the rounds it names");
        assertEquals(2, focus.rounds(1_000, 2, false));
    }

    @Test
    void refusesWhatTheScenarioHasNot() {
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of("alos-fast"), Set.of(), 1));
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of(), Set.of(2_000), 1));
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of(), Set.of(), 0));
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of(), Set.of(), LatencyFocus.MOST_ROUNDS + 1));
        assertThrows(IllegalArgumentException.class, () -> new LatencyFocus(Set.of(), Set.of(), 1, -1));
        assertThrows(IllegalArgumentException.class,
                () -> new LatencyFocus(Set.of(), Set.of(), 1, LatencyFocus.MOST_ECHO_IDLE_TOPICS + 1));
    }

    @Test
    void aFloorReadingIdleTopicsIsAFocusedRun() {
        LatencyFocus wide = new LatencyFocus(Set.of(), Set.of(), 1, 5);

        assertEquals(5, wide.echoIdleTopics());
        assertFalse(wide.all(), "a full run's floor reads the requests alone");
        assertEquals(0, LatencyFocus.ALL.echoIdleTopics());
    }
}

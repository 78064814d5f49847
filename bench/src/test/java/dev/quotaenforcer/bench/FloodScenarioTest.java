package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class FloodScenarioTest {

    private static final long MIB = 1024 * 1024;

    private final FloodScenario scenario = new FloodScenario();

    private static FloodScenario.Measured measured(int requests, int cap, long admitted, long refused, long peakRssMib) {
        FloodScenario.Measured m = new FloodScenario.Measured(requests, cap);
        m.produceSeconds = 10;
        m.decideSeconds = 60;
        // Sorted by reason, as PrometheusText.sumBy returns them.
        m.decisionsByReason = new TreeMap<>(Map.of("OK", (double) admitted, "UNKNOWN_API_KEY", (double) refused));
        m.decisionsByPlan = Map.of("flood", (double) admitted, "none", (double) refused);
        m.state = new StateScenario.Changelog(admitted, 36 * admitted, 44 * admitted, 44, 27 * admitted, 27);
        m.usage = new StateScenario.Changelog(admitted, 36 * admitted, 44 * admitted, 44, 44 * admitted, 44);
        m.requestIds = new StateScenario.Changelog(admitted, 60 * admitted, 370 * admitted, 380, 370 * admitted, 380);
        m.idle = new ProcessMemory.Resident(200 * MIB, 210 * MIB);
        m.loaded = new ProcessMemory.Resident(500 * MIB, peakRssMib * MIB);
        m.heapLoaded = new ProcessMemory.Heap(400 * MIB, 300 * MIB, 60 * MIB);
        m.liveHeapIdle = 25_000_000;
        m.liveHeapLoaded = 25_000_000 + 250 * admitted;
        return m;
    }

    @Test
    void countsDecisionsByReasonAndMemoryPerAdmittedKey() {
        ScenarioResult result = scenario.result(measured(2_000_000, 100_000, 600_000, 1_400_000, 700));

        assertEquals(600_000, result.figures().get("admitted").value());
        assertEquals(1_400_000, result.figures().get("refusedUnknownApiKey").value());
        assertEquals(1_400_000, result.figures().get("decisions.UNKNOWN_API_KEY").value());
        assertEquals(600_000, result.figures().get("keysWithState").value());
        assertEquals(6, result.figures().get("tasks").value());
        assertEquals(700.0 * MIB, result.figures().get("rssPeakBytes").value());
        assertEquals(300.0 * MIB, result.figures().get("heapUsedBytes").value());
        assertEquals(300.0 * MIB / 600_000, result.figures().get("rssBytesPerAdmittedKey").value(), 1e-9);
        assertEquals(250.0, result.figures().get("liveHeapBytesPerAdmittedKey").value(), 1e-9);
        assertEquals(List.of("OK", "UNKNOWN_API_KEY"), result.tables().get(0).rows().stream().map(row -> row.get(0)).toList());
        assertTrue(result.notes().stream().anyMatch(note -> note.contains("quota.default.plan.max.keys=100000 per task")
                && note.contains("at most 600000 keys")), result.notes().toString());
        assertTrue(result.notes().stream().anyMatch(note -> note.startsWith("Nothing here is asserted on time")));
    }

    @Test
    void targetsArePeakResidentSetAndAdmittedKeysWithinCapTimesTasks() {
        ScenarioResult met = scenario.result(measured(2_000_000, 100_000, 600_000, 1_400_000, 1000));
        assertEquals(List.of(1000.0, 600_000.0), met.targets().stream().map(Target::measured).toList());
        assertEquals(List.of(1024.0, 600_000.0), met.targets().stream().map(Target::bound).toList());
        assertTrue(met.targets().stream().allMatch(Target::met));

        ScenarioResult missed = scenario.result(measured(2_000_000, 100_000, 600_001, 1_399_999, 1100));
        assertFalse(missed.targets().stream().anyMatch(Target::met));
    }

    @Test
    void withoutACapOnlyMemoryIsATarget() {
        ScenarioResult result = scenario.result(measured(50_000, 0, 50_000, 0, 400));

        assertEquals(1, result.targets().size());
        assertTrue(result.notes().stream().anyMatch(note -> note.contains("=0 (no cap)")), result.notes().toString());
    }

    @Test
    void aRunThatNeverReachesTheCapSaysSo() {
        ScenarioResult quick = scenario.result(measured(50_000, 100_000, 50_000, 0, 400));
        assertTrue(quick.notes().stream().anyMatch(note -> note.startsWith("No task reached the cap")), quick.notes().toString());

        ScenarioResult full = scenario.result(measured(2_000_000, 100_000, 600_000, 1_400_000, 700));
        assertFalse(full.notes().stream().anyMatch(note -> note.startsWith("No task reached the cap")));
    }

    @Test
    void aDecisionMissingOrCountedTwiceFailsTheRun() {
        assertThrows(IllegalStateException.class, () -> scenario.result(measured(1000, 100, 600, 399, 400)));
        assertThrows(IllegalStateException.class, () -> scenario.result(measured(1000, 100, 600, 401, 400)));
    }
}

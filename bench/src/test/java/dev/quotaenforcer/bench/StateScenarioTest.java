package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateScenarioTest {

    private static final double MIB = 1024 * 1024;

    private final StateScenario scenario = new StateScenario();

    private static StateScenario.Measured measured(int keys, long decisions, int maxValueBytes, long peakRssMib,
                                                   double readySeconds) {
        StateScenario.Measured m = new StateScenario.Measured(keys);
        m.decideSeconds = 20;
        m.decisions = decisions;
        m.predictedValueBytes = 26.9;
        m.state = new StateScenario.Changelog(keys, 9L * keys, 44L * keys, maxValueBytes + 17, 27L * keys, maxValueBytes);
        m.requestIds = new StateScenario.Changelog(keys, 30L * keys, 370L * keys, 380, 370L * keys, 380);
        m.stateLogBytes = 46L * keys;
        m.rocksDbBytes = 43L * keys;
        m.idle = new ProcessMemory.Resident(200 * (long) MIB, 200 * (long) MIB);
        m.loaded = new ProcessMemory.Resident(400 * (long) MIB, peakRssMib * (long) MIB);
        m.heapLoaded = new ProcessMemory.Heap(300 * (long) MIB, 250 * (long) MIB, 50 * (long) MIB);
        m.liveHeapIdle = 25_000_000;
        m.liveHeapLoaded = 25_000_000 + 300L * keys;
        m.sweeps = List.of(new EnforcerLogLines.Sweep("4_0", keys / 2, 0, 2000),
                new EnforcerLogLines.Sweep("4_0", keys / 2 + 10, 0, 3000), new EnforcerLogLines.Sweep("4_1", keys / 2 - 10, 0, 5000));
        m.readySeconds = readySeconds;
        m.restore = new EnforcerLogLines.Restore(2L * keys, 4000, Map.of("quota-state", (long) keys, "quota-watermark", 3L), 12);
        m.restored = new ProcessMemory.Resident(350 * (long) MIB, 360 * (long) MIB);
        return m;
    }

    @Test
    void figuresArePerKeyAndTheSweepIsEachTasksLast() {
        ScenarioResult result = scenario.result(measured(1000, 1000, 27, 450, 12));

        assertEquals(44.0, result.figures().get("valueBytesPerKey").value(), 1e-9);
        assertEquals(27.0, result.figures().get("stateValueBytesPerKey").value(), 1e-9);
        assertEquals(17.0, result.figures().get("usageValueBytesPerKey").value(), 1e-9);
        assertEquals(46.0, result.figures().get("changelogBytesPerKey").value(), 1e-9);
        assertEquals(43.0, result.figures().get("rocksDbBytesPerKey").value(), 1e-9);
        assertEquals(400.0, result.figures().get("requestIdBytesPerRequest").value(), 1e-9);
        assertEquals(400.0 * 5000 * 60, result.figures().get("requestIdBytesAt5kPerSecond").value(), 1e-9);
        assertEquals(300.0, result.figures().get("liveHeapPerKey").value(), 1e-9);
        assertEquals(1000, result.figures().get("sweepKeys").value());
        assertEquals(0.008, result.figures().get("sweepSeconds").value(), 1e-12);
        assertEquals(0.01, result.figures().get("allSweepsSeconds").value(), 1e-12);
        assertEquals(4.0, result.figures().get("restoreSeconds").value(), 1e-12);
        assertEquals(3, result.targets().size());
        assertTrue(result.targets().stream().allMatch(Target::met));
    }

    @Test
    void targetsAreTheLargestValueThePeakResidentSetAndTheTimeToReady() {
        ScenarioResult result = scenario.result(measured(1000, 1000, 33, 1100, 31));

        assertEquals(List.of(33.0, 1100.0, 31.0), result.targets().stream().map(Target::measured).toList());
        assertFalse(result.targets().stream().anyMatch(Target::met));
    }

    @Test
    void aDecisionMissingOrCountedTwiceFailsTheRun() {
        assertThrows(IllegalStateException.class, () -> scenario.result(measured(1000, 999, 27, 450, 12)));
        assertThrows(IllegalStateException.class, () -> scenario.result(measured(1000, 1001, 27, 450, 12)));
    }

    @Test
    void rocksDbBytesAreThoseOfTheNamedStoreInEveryTask(@TempDir Path stateDir) throws Exception {
        Files.createDirectories(stateDir.resolve("app/0_0/rocksdb/quota-state"));
        Files.createDirectories(stateDir.resolve("app/0_1/rocksdb/quota-state"));
        Files.createDirectories(stateDir.resolve("app/0_1/rocksdb/plan-usage-by-hour"));
        Files.write(stateDir.resolve("app/0_0/rocksdb/quota-state/000001.sst"), new byte[100]);
        Files.write(stateDir.resolve("app/0_1/rocksdb/quota-state/000002.sst"), new byte[50]);
        Files.write(stateDir.resolve("app/0_1/rocksdb/plan-usage-by-hour/000003.sst"), new byte[70]);
        Files.write(stateDir.resolve("app/0_1/.checkpoint"), new byte[9]);

        assertEquals(150, StateScenario.rocksDbBytes(stateDir, "quota-state"));
    }
}

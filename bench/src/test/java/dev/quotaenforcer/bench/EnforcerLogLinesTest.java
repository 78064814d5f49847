package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The state scenario reads restores and expiry sweeps from the enforcer's log lines. */
class EnforcerLogLinesTest {

    private static final List<String> LOG = List.of(
            "12:15:44.688 INFO  [g-GlobalStreamThread] d.quotaenforcer.runtime.RestoreLog - Restored 0 records in 0 ms: plan-catalog 0 (1 partitions)",
            "12:15:48.370 INFO  [s-StateUpdater-1] d.quotaenforcer.runtime.RestoreLog - Restored 10 records in 102 ms: plan-usage-by-hour 0, quota-state 4, usage-by-hour 6 (5 partitions)",
            "12:15:49.901 INFO  [main] dev.quotaenforcer.cli.Stack - quota-enforcer ready: bench.requests (6 partitions)",
            "12:17:09.787 DEBUG [s-StreamThread-1] d.q.topology.QuotaProcessor - Expiry sweep of task 4_5: 14361 keys scanned, 0 deleted in 15486 us",
            "12:17:09.900 DEBUG [s-StreamThread-1] d.q.topology.QuotaProcessor - Expiry sweep of task 4_0: 900 keys scanned, 3 deleted in 800 us",
            "12:17:09.977 DEBUG [s-StreamThread-1] d.q.topology.QuotaProcessor - Expiry sweep of task 4_5: 14638 keys scanned, 2 deleted in 63223 us (5 trimmed)",
            "12:18:00.000 INFO  [s-StateUpdater-1] d.quotaenforcer.runtime.RestoreLog - Restored 2000 records in 1500 ms: quota-state 1000, usage-by-hour 1000 (12 partitions)",
            "12:18:01.000 INFO  [g-GlobalStreamThread] d.quotaenforcer.runtime.RestoreLog - Restored 3 records in 5 ms: key-catalog 3 (1 partitions)");

    @Test
    void shouldFindTheLastRestoreThatIncludedTheStore() {
        assertEquals(Optional.of(new EnforcerLogLines.Restore(2000, 1500, Map.of("quota-state", 1000L, "usage-by-hour", 1000L), 12)),
                EnforcerLogLines.lastRestoreOf(LOG, "quota-state"));
        assertEquals(Optional.empty(), EnforcerLogLines.lastRestoreOf(LOG, "no-such-store"));
    }

    @Test
    void shouldReadEverySweepAndEachTasksLast() {
        List<EnforcerLogLines.Sweep> sweeps = EnforcerLogLines.sweeps(LOG);

        assertEquals(3, sweeps.size());
        assertEquals(List.of(new EnforcerLogLines.Sweep("4_0", 900, 3, 800), new EnforcerLogLines.Sweep("4_5", 14638, 2, 63223)),
                EnforcerLogLines.lastSweepPerTask(sweeps));
    }
}

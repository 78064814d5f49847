package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commit-wait scenario, quick, on real brokers: every turn's commits are timed, and nothing is judged. */
class CommitWaitScenarioIT {

    @TempDir
    Path dir;

    @Test
    void timesTheFirstRecordAfterEveryCommitOnBothBrokerSettingsInBothTurns() throws Exception {
        StringWriter progress = new StringWriter();
        ScenarioResult result = new CommitWaitScenario().run(new BenchContext(true, 1, dir, new Progress(new PrintWriter(progress))));

        List<List<String>> rows = result.tables().get(0).rows();
        assertEquals(List.of("1 (embedded broker)", "20 (Kafka's default)"),
                rows.stream().map(row -> row.get(0)).distinct().toList());
        assertEquals(2 * CommitWaitScenario.DELAYS_MS.size(), rows.size());
        for (List<String> row : rows) {
            // Two turns of 40 commits each, quick.
            assertEquals("80", row.get(2), row.toString());
            double p50 = Double.parseDouble(row.get(3));
            double p99 = Double.parseDouble(row.get(5));
            assertTrue(p50 > 0 && p50 <= p99, row.toString());
        }
        assertTrue(progress.toString().contains("commit-wait: turn 4 of 4, broker back-off 1 ms"), progress.toString());
    }
}

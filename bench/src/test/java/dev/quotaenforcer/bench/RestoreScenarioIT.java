package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The restore scenario, quick, on real brokers: both setups decide every request, and their changelogs and restores are measured. */
class RestoreScenarioIT {

    @TempDir
    Path dir;

    @Test
    void measuresTheChangelogsAndTheRestoreOfBothSetupsAfterEveryRequestIsDecided() throws Exception {
        StringWriter progress = new StringWriter();
        ScenarioResult result = new RestoreScenario().run(new BenchContext(true, 1, dir, new Progress(new PrintWriter(progress))));

        List<List<String>> rows = result.tables().get(0).rows();
        assertEquals(List.of("the enforcer's batch changelog settings", "Kafka's topic settings"),
                rows.stream().map(row -> row.get(0)).toList());
        for (List<String> row : rows) {
            // 1,000 requests/s for 15 s, quick; the sender may fall a little behind on a busy machine.
            long decided = Long.parseLong(row.get(1));
            assertTrue(decided > 10_000 && decided <= 15_000, row.toString());
            assertTrue(Double.parseDouble(row.get(2)) > 0 && Long.parseLong(row.get(3)) > 0, row.toString());
            assertTrue(Double.parseDouble(row.get(4)) > 0 && Long.parseLong(row.get(5)) > 0, row.toString());
            assertTrue(Double.parseDouble(row.get(6)) > 0, row.toString());
        }
        assertTrue(result.figures().containsKey("kafkaSettings.request-id-batches-changelog.records"), result.figures().toString());
        assertTrue(progress.toString().contains("restore: Kafka's topic settings: changelogs"), progress.toString());
    }
}

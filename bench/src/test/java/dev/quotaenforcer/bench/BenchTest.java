package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchTest {

    @TempDir
    Path dir;

    @Test
    void selectsNamedScenariosInRunOrderAndThoseOfAFullRunWhenNoneAreNamed() {
        assertEquals(List.of("accuracy", "algorithms", "throughput", "state", "flood", "latency", "redis", "commit-wait"), Bench.select(List.of()).stream().map(Scenario::name).toList());
        assertEquals(List.of("state", "restore"), Bench.select(List.of("restore", "state")).stream().map(Scenario::name).toList());
        assertEquals(List.of("accuracy", "algorithms"),
                Bench.select(List.of("algorithms", "accuracy")).stream().map(Scenario::name).toList());
        assertEquals(List.of("accuracy"), Bench.select(List.of("accuracy")).stream().map(Scenario::name).toList());
    }

    @Test
    void anUnknownScenarioIsTheUsersErrorNamingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Bench.select(List.of("speed")));
        assertEquals("unknown scenario speed; known: accuracy, algorithms, throughput, state, flood, latency, redis, commit-wait, restore", e.getMessage());
    }

    @Test
    void runsAScenarioReportingProgressAndWritesTheReport() throws Exception {
        StringWriter progress = new StringWriter();
        Scenario tiny = new Scenario() {
            @Override
            public String name() {
                return "tiny";
            }

            @Override
            public String description() {
                return "Counts to three.";
            }

            @Override
            public ScenarioResult run(BenchContext context) {
                return ScenarioResult.builder(this, "counting").figure("count", 3, "numbers").build();
            }
        };
        BenchReport report = Bench.run(List.of(tiny), new BenchContext(true, 1, dir, new Progress(new PrintWriter(progress))));

        assertEquals(1, report.scenarios().size());
        assertTrue(report.scenarios().get(0).seconds() >= 0);
        assertTrue(progress.toString().contains("tiny: starting (quick)"), progress.toString());
        assertTrue(progress.toString().contains("tiny: done in"), progress.toString());
        assertTrue(Files.readString(dir.resolve("report.md")).contains("## tiny: counting"));
    }
}

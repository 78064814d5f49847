package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ThroughputScenarioTest {

    private static ThroughputScenario.Run run(long records, double seconds, double cpuSeconds, long written) {
        return run("byte-copy", records, seconds, cpuSeconds, Map.of("copy", written), Map.of("copy", written * 100));
    }

    private static ThroughputScenario.Run run(String application, long records, double seconds, double cpuSeconds,
                                              Map<String, Long> written, Map<String, Long> bytes) {
        return new ThroughputScenario.Run(application, "exactly_once_v2", records, seconds, cpuSeconds,
                new ThroughputScenario.Appended(written, bytes), Map.of(), new ThreadTimes(0, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void poolsTheByteCopysRunsAsOneRunOfAllTheirRecordsNotAnAverageOfTheirRates() {
        // 1,000 records in 1 s and 1,000 in 3 s: 500/s over both, where the mean of the rates would say 667.
        ThroughputScenario.Ceiling ceiling = ThroughputScenario.Ceiling.pooled(run(1_000, 1, 0.002, 1_000),
                run(1_000, 3, 0.004, 1_200));

        assertEquals(500, ceiling.perSecond(), 1e-9);
        assertEquals(3, ceiling.cpuMicrosPerRecord(), 1e-9);
        assertEquals(1.1, ceiling.writtenPerRecord(), 1e-9);
        assertEquals(110, ceiling.bytesPerRecord(), 1e-9);
    }

    @Test
    void whatWasAppendedSinceAnEarlierLookCountsOnlyTheTopicsThatGrew() {
        ThroughputScenario.Appended before = new ThroughputScenario.Appended(Map.of("a", 10L, "b", 5L), Map.of("a", 1_000L, "b", 500L));
        ThroughputScenario.Appended now = new ThroughputScenario.Appended(Map.of("a", 12L, "b", 5L, "c", 3L),
                Map.of("a", 1_300L, "b", 500L, "c", 90L));

        ThroughputScenario.Appended gained = now.since(before);

        assertEquals(Map.of("a", 2L, "c", 3L), gained.records());
        assertEquals(Map.of("a", 300L, "c", 90L), gained.bytes());
    }

    @Test
    void theWrittenTableShowsEachTopicsRecordsAndBytesPerDecisionThenAllTopicsAndTheByteCopysPerRecord() {
        String decisions = "bench.decisions";
        String changelog = "bench-enforcer-exactly-once-v2-quota-state-changelog";
        List<ThroughputScenario.Run> runs = List.of(
                run("byte-copy", 1_000, 1, 1, Map.of("copy", 1_000L), Map.of("copy", 150_000L)),
                run("enforcer", 1_000, 1, 1, Map.of(decisions, 1_000L, changelog, 300L), Map.of(decisions, 450_000L, changelog, 21_000L)),
                run("byte-copy, after the enforcer", 1_000, 1, 1, Map.of("copy", 1_002L), Map.of("copy", 150_400L)));

        Table table = ThroughputScenario.writtenTable(runs, 1_000);

        assertEquals(List.of("topic", "exactly_once_v2 records", "exactly_once_v2 bytes"), table.columns());
        assertEquals(List.of(List.of(decisions, "1.000", "450.0"), List.of("quota-state-changelog", "0.300", "21.0"),
                List.of("all topics", "1.300", "471.0"),
                List.of("the byte-copy's output, per record (before and after pooled)", "1.001", "150.2")), table.rows());
    }

    @Test
    void theTimeTableShowsTheJitCompilersCoresApartFromTheRestOfTheProcess() {
        // 2 s of wall-clock time: the process used 3 s of CPU, the application 1 s of it and the compilers 0.5 s.
        ThroughputScenario.Run run = new ThroughputScenario.Run("enforcer", "exactly_once_v2", 1_000, 2, 1,
                new ThroughputScenario.Appended(Map.of(), Map.of()), Map.of(),
                new ThreadTimes(800_000_000L, 3_000_000_000L, 0, 0, 0, 0, 500_000_000L));

        Table table = ThroughputScenario.timeTable(List.of(run));

        assertEquals(List.of("the JIT compilers, cores", "25.0%"), table.rows().get(table.rows().size() - 2));
        assertEquals(List.of("the rest of the process (broker, benchmark, collector), cores", "75.0%"),
                table.rows().get(table.rows().size() - 1));
    }
}

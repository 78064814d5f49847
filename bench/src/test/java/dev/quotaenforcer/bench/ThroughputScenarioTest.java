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
        return new ThroughputScenario.Run(application, "bench-" + application.replace(' ', '-'), "exactly_once_v2", records,
                seconds, cpuSeconds,
                new ThroughputScenario.Appended(written, bytes), Map.of(), new ThreadTimes(0, 0, 0, 0, 0, 0, 0));
    }

    @Test
    void poolsTheByteCopysRunsAsOneRunOfAllTheirRecordsNotAnAverageOfTheirRates() {
        // 1,000 records in 1 s and 1,000 in 3 s: 500/s over both, where the mean of the rates would say 667.
        ThroughputScenario.Pooled ceiling = ThroughputScenario.Pooled.of(List.of(run(1_000, 1, 0.002, 1_000),
                run(1_000, 3, 0.004, 1_200)));

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
        // Each enforcer run's changelog is named after its own application id.
        String changelog = "bench-enforcer-quota-state-changelog";
        String secondChangelog = "bench-enforcer,-run-2-quota-state-changelog";
        List<ThroughputScenario.Run> runs = List.of(
                run("byte-copy", 1_000, 1, 1, Map.of("copy", 1_000L), Map.of("copy", 150_000L)),
                run("enforcer", 1_000, 1, 1, Map.of(decisions, 1_000L, changelog, 300L), Map.of(decisions, 450_000L, changelog, 21_000L)),
                run("byte-copy, after the enforcer", 1_000, 1, 1, Map.of("copy", 1_002L), Map.of("copy", 150_400L)),
                run("enforcer, run 2", 1_000, 1, 1, Map.of(decisions, 1_000L, secondChangelog, 100L),
                        Map.of(decisions, 430_000L, secondChangelog, 9_000L)),
                run("byte-copy, after the enforcer, run 2", 1_000, 1, 1, Map.of("copy", 1_003L), Map.of("copy", 150_500L)));

        Table table = ThroughputScenario.writtenTable(runs);

        assertEquals(List.of("topic", "exactly_once_v2 records", "exactly_once_v2 bytes"), table.columns());
        assertEquals(List.of(List.of(decisions, "1.000", "440.0"), List.of("quota-state-changelog", "0.200", "15.0"),
                List.of("all topics", "1.200", "455.0"),
                List.of("the byte-copy's output, per record (all its runs pooled)", "1.002", "150.3")), table.rows());
    }

    @Test
    void eachRoundOfAnApplicationIsFoundByItsLabelAndNoOtherApplicationsIs() {
        List<ThroughputScenario.Run> runs = List.of(run(1_000, 1, 1, 1_000),
                run(ThroughputScenario.label("byte-copy, after the enforcer", 1), 1_000, 1, 1, Map.of(), Map.of()),
                run(ThroughputScenario.label("enforcer", 1), 1_000, 1, 1, Map.of(), Map.of()),
                run(ThroughputScenario.label("enforcer", 2), 2_000, 1, 1, Map.of(), Map.of()));

        assertEquals(List.of("byte-copy"), ThroughputScenario.each(runs, "byte-copy", "exactly_once_v2").stream()
                .map(ThroughputScenario.Run::application).toList());
        assertEquals(List.of(1_000L, 2_000L), ThroughputScenario.each(runs, "enforcer", "exactly_once_v2").stream()
                .map(ThroughputScenario.Run::records).toList());
        assertEquals(List.of(), ThroughputScenario.each(runs, "enforcer", "at_least_once"));
    }

    @Test
    void theTimeTableShowsTheJitCompilersCoresApartFromTheRestOfTheProcess() {
        // 2 s of wall-clock time: the process used 3 s of CPU, the application 1 s of it and the compilers 0.5 s.
        ThroughputScenario.Run run = new ThroughputScenario.Run("enforcer", "bench-enforcer", "exactly_once_v2", 1_000, 2, 1,
                new ThroughputScenario.Appended(Map.of(), Map.of()), Map.of(),
                new ThreadTimes(800_000_000L, 3_000_000_000L, 0, 0, 0, 0, 500_000_000L));

        Table table = ThroughputScenario.timeTable(List.of(run));

        assertEquals(List.of("the JIT compilers, cores", "25.0%"), table.rows().get(table.rows().size() - 2));
        assertEquals(List.of("the rest of the process (broker, benchmark, collector), cores", "75.0%"),
                table.rows().get(table.rows().size() - 1));
    }
}

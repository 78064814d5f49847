package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

class LatencyScenarioTest {

    /** 60,000 requests: 1.5 s of the application's CPU, 4.5 s of this JVM's, 9 s of the broker's; 3 of 4 ticks busy. */
    private static final TurnCpu CPU = new TurnCpu(60_000, 1.5e9, 4.5e9, 9e9, 300, 400);

    private static OpenLoop.Result measured(int load, double p99Ms) {
        return new OpenLoop.Result(load, new LatencySummary(load * 3L, p99Ms / 4, p99Ms, p99Ms * 2, p99Ms * 3), load * 3L,
                load * 3L, 0, 0, 0, load, 0.5, new Histogram(3));
    }

    private static List<LatencyScenario.Measured> defaultRuns() {
        List<LatencyScenario.Measured> runs = new ArrayList<>();
        for (LatencyScenario.Setup setup : LatencyScenario.SETUPS) {
            for (IsolationLevel isolation : setup.readers()) {
                for (int load : setup.loads()) {
                    double p99 = setup.tuning() ? 90 : setup.responder() == LatencyScenario.Responder.ECHO ? 2
                            : isolation == IsolationLevel.READ_COMMITTED && setup.id().startsWith("eos") ? 150 : 4;
                    runs.add(new LatencyScenario.Measured(setup, isolation, measured(load, p99), 12, 3,
                            setup.tuning() ? List.of(p99) : List.of(p99, p99), new CommitTimes(40, 100e6, 60e6, 20e6),
                            new TurnInterruptions(5, 22, 0, 30), CPU, LatencyScenario.FrozenTurns.none(p99), 0));
                }
            }
        }
        return runs;
    }

    @Test
    void judgesTheP99TargetAt5kPerSecondUnderEachGuaranteeWithRepliesReadAsSoonAsWritten() {
        ScenarioResult result = new LatencyScenario().result(defaultRuns(), Duration.ofSeconds(5),
                Duration.ofSeconds(20), Duration.ofSeconds(25), Duration.ofSeconds(20));

        assertEquals(List.of("p99 at 5000/s, exactly_once_v2, read_uncommitted", "p99 at 5000/s, at_least_once"),
                result.targets().stream().map(Target::name).toList());
        assertTrue(result.targets().stream().allMatch(Target::met));
        assertEquals(150, result.figures().get("eos-committed.5000.p99Ms").value());
        assertEquals(4, result.figures().get("eos-uncommitted.20000.p99Ms").value());
        assertEquals(90, result.figures().get("eos-commit1000-uncommitted.5000.p99Ms").value());
        assertEquals(90, result.figures().get("alos-linger100.5000.p99Ms").value());
        assertEquals(12, result.figures().get("eos-committed.1000.longestCommitPerTaskMs").value());
    }

    @Test
    void labelsEachRowWithItsGuaranteeReadsAndOverrides() {
        ScenarioResult result = new LatencyScenario().result(defaultRuns(), Duration.ofSeconds(1),
                Duration.ofSeconds(20), Duration.ofSeconds(25), Duration.ofSeconds(3));

        List<String> setups = result.tables().get(0).rows().stream().map(row -> row.get(0)).distinct().toList();
        assertEquals(List.of("exactly_once_v2, read_committed", "exactly_once_v2, read_uncommitted",
                "reply echo (floor), exactly_once_v2, read_committed",
                "reply echo (floor), exactly_once_v2, read_uncommitted", "at_least_once", "reply echo (floor), at_least_once",
                "at_least_once, producer.linger.ms=100", "exactly_once_v2, read_uncommitted, producer.linger.ms=100",
                "at_least_once, statestore.cache.max.bytes=0",
                "exactly_once_v2, read_uncommitted, statestore.cache.max.bytes=0",
                "exactly_once_v2, read_uncommitted, producer.retry.backoff.ms=100",
                "exactly_once_v2, read_committed, producer.retry.backoff.ms=100",
                "exactly_once_v2, read_uncommitted, commit.interval.ms=1000"), setups);
        assertEquals(3, result.charts().size());
    }

    @Test
    void labelsAFloorThatReadIdlePartitionsWithHowMany() {
        LatencyScenario.Setup echo = LatencyScenario.SETUPS.stream().filter(setup -> setup.id().equals("echo-alos"))
                .findFirst().orElseThrow();
        LatencyScenario.Measured wide = new LatencyScenario.Measured(echo, IsolationLevel.READ_COMMITTED, measured(5_000, 2),
                12, 3, List.of(2.0), new CommitTimes(40, 100e6, 60e6, 20e6), new TurnInterruptions(5, 22, 0, 30), CPU,
                LatencyScenario.FrozenTurns.none(2), 30);

        assertEquals("reply echo (floor), reading 30 idle partitions too, at_least_once", wide.label());
    }

    @Test
    void setsEachEnforcerP99BesideTheReplyEchoUnderTheSameGuaranteeAndReads() {
        ScenarioResult result = new LatencyScenario().result(defaultRuns(), Duration.ofSeconds(1),
                Duration.ofSeconds(20), Duration.ofSeconds(25), Duration.ofSeconds(3));

        assertEquals(2.0, result.figures().get("eos-uncommitted.5000.p99OverFloor").value());
        assertEquals(75.0, result.figures().get("eos-committed.1000.p99OverFloor").value());
        assertEquals(2.0, result.figures().get("alos.5000.p99OverFloor").value());
        assertFalse(result.figures().containsKey("eos-uncommitted.20000.p99OverFloor"), "no floor measured at 20k/s");
        Table floor = result.tables().get(1);
        assertEquals(List.of("exactly_once_v2, read_uncommitted", "1000", "2", "4", "2", "2", "4", "2"), floor.rows().get(0));
        assertEquals(6, floor.rows().size());
    }

    @Test
    void judgesTheRatioWithoutTheTurnsACoreStoppedInAndSetsTheRatioWithThemBeside() {
        List<LatencyScenario.Measured> runs = defaultRuns().stream()
                .map(run -> run.series().equals("alos") && run.result().offeredPerSecond() == 5000
                        ? new LatencyScenario.Measured(run.setup(), run.replies(), run.result(), 12, 3, run.turnP99Ms(),
                        run.commits(), run.interruptions(), run.cpu(), new LatencyScenario.FrozenTurns(List.of(110.0, 95.0), 1, 30), 0)
                        : run)
                .toList();

        ScenarioResult result = new LatencyScenario().result(runs, Duration.ofSeconds(1),
                Duration.ofSeconds(20), Duration.ofSeconds(25), Duration.ofSeconds(3));

        assertEquals(2.0, result.figures().get("alos.5000.p99OverFloor").value());
        assertEquals(15.0, result.figures().get("alos.5000.everyTurnP99OverFloor").value());
        assertEquals(2, result.figures().get("alos.5000.turnsMeasuredAgain").value());
        assertEquals(1, result.figures().get("alos.5000.frozenTurnsKept").value());
        List<String> row = result.tables().get(0).rows().stream()
                .filter(r -> r.get(0).equals("at_least_once") && r.get(1).equals("5000")).findFirst().orElseThrow();
        assertEquals(List.of("2 (110, 95); 1 kept, none left to measure again", "30"), row.subList(row.size() - 2, row.size()));
        List<String> floor = result.tables().get(1).rows().stream()
                .filter(r -> r.get(0).equals("at_least_once") && r.get(1).equals("5000")).findFirst().orElseThrow();
        assertEquals(List.of("at_least_once", "5000", "2", "4", "2", "2", "30", "15"), floor);
    }

    @Test
    void showsEachRowsCpuPerRequestOfTheApplicationTheRestOfTheJvmAndTheBrokerBesideHowBusyTheMachineWas() {
        ScenarioResult result = new LatencyScenario().result(defaultRuns(), Duration.ofSeconds(1),
                Duration.ofSeconds(20), Duration.ofSeconds(25), Duration.ofSeconds(3));

        Table table = result.tables().get(0);
        int column = table.columns().indexOf("CPU per request, µs: application / rest of this JVM / broker; machine busy");
        assertEquals("25 / 50 / 150; 75%", table.rows().get(0).get(column));
        assertEquals(25, result.figures().get("alos.5000.applicationCpuMicrosPerRequest").value());
        assertEquals(50, result.figures().get("alos.5000.restOfJvmCpuMicrosPerRequest").value());
        assertEquals(150, result.figures().get("alos.5000.brokerCpuMicrosPerRequest").value());
        assertEquals(0.75, result.figures().get("alos.5000.machineBusyShare").value());
    }

    @Test
    void aMissedTargetIsReportedMissed() {
        List<LatencyScenario.Measured> runs = defaultRuns().stream()
                .map(run -> run.series().equals("alos") ? new LatencyScenario.Measured(run.setup(), run.replies(),
                        measured((int) run.result().offeredPerSecond(), 120), 12, 3, List.of(120.0), run.commits(),
                        run.interruptions(), run.cpu(), LatencyScenario.FrozenTurns.none(120), 0) : run)
                .toList();

        ScenarioResult result = new LatencyScenario().result(runs, Duration.ofSeconds(1),
                Duration.ofSeconds(20), Duration.ofSeconds(25), Duration.ofSeconds(3));

        assertFalse(result.targets().get(1).met());
        assertEquals(120, result.targets().get(1).measured());
    }

    @Test
    void measuresSetupsSharingALoadInTurnsThatMirrorSoNeitherGainsFromRunningLater() {
        assertEquals(List.of("enforcer", "echo", "echo", "enforcer"), LatencyScenario.turns(List.of("enforcer", "echo"), 1));
        assertEquals(List.of("tuning"), LatencyScenario.turns(List.of("tuning"), 1));
    }

    @Test
    void repeatsTheMirroredTurnsForEachRoundAndASetupAloneOncePerRound() {
        assertEquals(List.of("enforcer", "echo", "echo", "enforcer", "enforcer", "echo", "echo", "enforcer"),
                LatencyScenario.turns(List.of("enforcer", "echo"), 2));
        assertEquals(List.of("tuning", "tuning", "tuning"), LatencyScenario.turns(List.of("tuning"), 3));
    }

    @Test
    void pairsEachDefaultEnforcerWithTheEchoOfItsGuaranteeAndMeasuresEveryTuningAlone() {
        for (List<LatencyScenario.Setup> group : LatencyScenario.GROUPS) {
            if (group.size() > 1) {
                assertEquals(2, group.size(), group.toString());
                assertEquals(LatencyScenario.Responder.ENFORCER, group.get(0).responder());
                assertEquals(LatencyScenario.Responder.ECHO, group.get(1).responder());
                assertEquals(group.get(0).guarantee(), group.get(1).guarantee());
                assertEquals(group.get(0).readers(), group.get(1).readers());
                assertFalse(group.get(0).tuning());
            } else {
                assertTrue(group.get(0).tuning(), group.toString());
            }
        }
    }

    @Test
    void showsEachTurnsP99BesideThePooledOne() {
        Table runs = defaultRunsTable();
        int column = runs.columns().indexOf("p99 per turn");
        assertEquals("150, 150", runs.rows().get(0).get(column));
        assertEquals("-", runs.rows().get(runs.rows().size() - 1).get(column), "a tuning runs in one turn");
    }

    @Test
    void showsTheMeanTimeOfEachCommitInTheProducerFlushTheOffsetsAndTheTransactionCommit() {
        Table runs = defaultRunsTable();
        int column = runs.columns().indexOf("per commit: producer flush / offsets / transaction commit, ms");
        assertEquals(Numbers.of(2.5) + " / " + Numbers.of(1.5) + " / " + Numbers.of(0.5), runs.rows().get(0).get(column));
    }

    @Test
    void showsTheJvmsCollectionsTheRecordsSentAgainAndTheCompilingDuringEachSetupsTurns() {
        Table runs = defaultRunsTable();
        assertEquals("5 / 22", runs.rows().get(0).get(runs.columns().indexOf("JVM collections in its turns / ms they took")));
        assertEquals("0", runs.rows().get(0).get(runs.columns().indexOf("records its producer sent again")));
        assertEquals("30", runs.rows().get(0).get(runs.columns().indexOf("ms the JIT compilers worked in its turns")));
    }

    /** The table of every run, as a full run of the default setups would fill it. */
    private static Table defaultRunsTable() {
        return new LatencyScenario().result(defaultRuns(), Duration.ofSeconds(1), Duration.ofSeconds(20),
                Duration.ofSeconds(25), Duration.ofSeconds(3)).tables().get(0);
    }
}

package dev.quotaenforcer.bench;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** Runs the chosen scenarios one after another and writes the report; the {@code bench} command's engine. */
public final class Bench {

    /** Every scenario, in the order a run takes them; a full run leaves out those that are not {@link Scenario#inFullRun}. */
    public static List<Scenario> scenarios() {
        LatencyScenario latency = new LatencyScenario();
        return List.of(new AccuracyScenario(), new AlgorithmsScenario(), new ThroughputScenario(), new StateScenario(),
                new FloodScenario(), latency, new RedisScenario(latency), new CommitWaitScenario(), new RestoreScenario());
    }

    private Bench() {
    }

    /** The scenarios named (when none are, those of a full run), in run order; an unknown name is the user's error. */
    public static List<Scenario> select(List<String> names) {
        Set<String> wanted = new LinkedHashSet<>(names);
        List<Scenario> known = scenarios();
        Set<String> knownNames = known.stream().map(Scenario::name).collect(Collectors.toCollection(LinkedHashSet::new));
        wanted.removeAll(knownNames);
        if (!wanted.isEmpty()) {
            throw new IllegalArgumentException("unknown scenario " + String.join(", ", wanted) + "; known: "
                    + String.join(", ", knownNames));
        }
        return names.isEmpty() ? known.stream().filter(Scenario::inFullRun).toList()
                : known.stream().filter(s -> names.contains(s.name())).toList();
    }

    /** Runs {@code scenarios} and writes report.md, report.json and the plots into the context's directory. */
    public static BenchReport run(List<Scenario> scenarios, BenchContext context) throws Exception {
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long start = System.nanoTime();
        Hardware hardware = Hardware.detect();
        context.progress().say("bench", "on " + hardware.describe());
        List<ScenarioResult> results = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            context.progress().say(scenario.name(), "starting (" + (context.quick() ? "quick" : "full") + ")");
            long scenarioStart = System.nanoTime();
            ScenarioResult result = scenario.run(context).withSeconds((System.nanoTime() - scenarioStart) / 1e9);
            context.progress().say(scenario.name(), "done in " + Numbers.of(result.seconds()) + " s");
            results.add(result);
        }
        BenchReport report = new BenchReport(started.toString(), context.quick(), context.seed(), hardware,
                context.enforcerSettings(), results,
                (System.nanoTime() - start) / 1e9);
        ReportWriter.write(report, context.outDir());
        return report;
    }
}

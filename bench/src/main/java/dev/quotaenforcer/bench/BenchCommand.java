package dev.quotaenforcer.bench;

import dev.quotaenforcer.config.Settings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Runs the benchmark scenarios and writes their report. */
@Command(name = "quota-enforcer-bench", mixinStandardHelpOptions = true, version = "quota-enforcer-bench 0.1.0",
        description = {"Runs the benchmark scenarios (all but restore unless --scenario names some), printing progress as they go, "
                + "and writes report.md, report.json and an SVG plot per scenario into --out. Scenarios: accuracy "
                + "(sliding window counter vs exact log on a seeded bursty trace), algorithms (JMH: ns per decision "
                + "of each algorithm and of the engine path, beside Bucket4j and Guava)."})
final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", paramLabel = "NAME", split = ",",
            description = "A scenario to run; repeat it or give a comma list. Default: all but restore, which takes 25 minutes.")
    List<String> scenarios = new ArrayList<>();

    @Option(names = "--quick", description = "Smaller traces and shorter JMH runs: minutes instead of tens of minutes.")
    boolean quick;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "target/bench",
            description = "Where the report goes. Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "20261130",
            description = "Seed of the generated traffic; the same seed replays the same trace. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = {"-s", "--set"}, paramLabel = "KEY=VALUE",
            description = "An enforcer setting (its own or any Kafka Streams or client setting) for every enforcer the "
                    + "scenarios start, over the enforcer's defaults; what a scenario sets itself (cluster, topics, "
                    + "application id, state directory, the guarantee and any setting a row varies) keeps its value. "
                    + "The report lists them. Repeatable.")
    Map<String, String> set = new LinkedHashMap<>();

    @Option(names = "--latency-setups", paramLabel = "ID", split = ",",
            description = "Only these setups of the latency scenario (eos, echo-eos, alos, echo-alos, or a tuning's id "
                    + "as its report names it); repeat it or give a comma list. Default: all.")
    Set<String> latencySetups = new LinkedHashSet<>();

    @Option(names = "--latency-loads", paramLabel = "N", split = ",",
            description = "Only these loads of the latency scenario, in requests/s (1000, 5000, 20000). Default: each "
                    + "setup's own.")
    Set<Integer> latencyLoads = new LinkedHashSet<>();

    @Option(names = "--latency-rounds", paramLabel = "N", defaultValue = "1",
            description = "How many rounds of turns the latency scenario's setups that share a load take (enforcer, "
                    + "echo, echo, enforcer in each), 1 to 50. Default: ${DEFAULT-VALUE}.")
    int latencyRounds;

    @Option(names = "--latency-echo-idle-topics", paramLabel = "N", defaultValue = "0",
            description = "Topics of 6 partitions, never written, that the latency scenario's reply echo reads beside the "
                    + "requests, 0 to 20: 5 give it 36 input partitions, about as many as the enforcer reads, most of them "
                    + "empty. Default: ${DEFAULT-VALUE}.")
    int latencyEchoIdleTopics;

    @Override
    public Integer call() throws Exception {
        List<Scenario> chosen = Bench.select(scenarios);
        // A misspelt or invalid setting fails here, not minutes later when a scenario starts its enforcer.
        Settings.load(null, Map.of(), set)
                .with(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092", "the benchmark's own broker").validate();
        LatencyFocus focus = new LatencyFocus(latencySetups, latencyLoads, latencyRounds, latencyEchoIdleTopics);
        BenchReport report = Bench.run(chosen, new BenchContext(quick, seed, out,
                new Progress(spec.commandLine().getErr()), set, focus));
        report.scenarios().forEach(scenario -> scenario.targets().forEach(target -> spec.commandLine().getOut()
                .println(scenario.name() + ": " + describe(target))));
        spec.commandLine().getOut().println("report written to " + out.resolve("report.md"));
        return 0;
    }

    private static String describe(Target target) {
        return (target.met() ? "met    " : "MISSED ") + target.name();
    }
}

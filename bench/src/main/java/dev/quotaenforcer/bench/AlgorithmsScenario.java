package dev.quotaenforcer.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Scenario 5: nanoseconds per decision of each algorithm, of the engine path, and of Bucket4j and Guava, with JMH. */
public final class AlgorithmsScenario implements Scenario {

    /** The ceiling for any one algorithm's decision. */
    static final double CEILING_NS = 100;

    /** The ceiling for our token bucket over Bucket4j's. */
    static final double BUCKET4J_RATIO_CEILING = 1.0;

    private static final String[] OURS = {
            "fixed-window", "sliding-window-counter", "sliding-window-log", "token-bucket", "leaky-bucket"};

    /** One JMH run: a benchmark method, optionally with one parameter value. */
    record Variant(String label, String method, String param, String value) {

        String include() {
            return "^" + AlgorithmBenchmarks.class.getName().replace(".", "\\.") + "\\." + method + "$";
        }
    }

    /** A variant's measured mean and the half-width of its 99.9% confidence interval. */
    record Measured(Variant variant, double ns, double error) {
    }

    @Override
    public String name() {
        return "algorithms";
    }

    @Override
    public String description() {
        return "JMH: nanoseconds per decision of each algorithm on its own state, of the engine path (decode, "
                + "evaluate a sliding-window-counter + hourly quota plan, encode), and of Bucket4j's local token bucket "
                + "and Guava's RateLimiter, all on the same traffic at 1.2x the sustained rate.";
    }

    /** Our token bucket and Bucket4j's run back to back, so the machine's load drifts least between the two. */
    static List<Variant> variants() {
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("token-bucket", "ours", "algorithm", "token-bucket"));
        variants.add(new Variant("Bucket4j token bucket", "bucket4j", "synchronization", "NONE"));
        variants.add(new Variant("Bucket4j token bucket, lock-free", "bucket4j", "synchronization", "LOCK_FREE"));
        variants.add(new Variant("Guava RateLimiter", "guava", null, null));
        for (String algorithm : OURS) {
            if (!algorithm.equals("token-bucket")) {
                variants.add(new Variant(algorithm, "ours", "algorithm", algorithm));
            }
        }
        variants.add(new Variant("engine path (2 policies + codec)", "engine", null, null));
        return variants;
    }

    @Override
    public ScenarioResult run(BenchContext context) throws IOException, RunnerException {
        Files.createDirectories(context.outDir());
        Path log = context.outDir().resolve("jmh-algorithms.log");
        List<Variant> variants = variants();
        List<Measured> measured = new ArrayList<>();
        try (PrintStream jmhOut = new PrintStream(Files.newOutputStream(log), true, StandardCharsets.UTF_8)) {
            for (Variant variant : variants) {
                context.progress().say(name(), "JMH " + (measured.size() + 1) + "/" + variants.size() + ": " + variant.label());
                RunResult run = new Runner(options(variant, context.quick()).build(),
                        OutputFormatFactory.createFormatInstance(jmhOut, VerboseMode.NORMAL)).runSingle();
                Result<?> primary = run.getPrimaryResult();
                double error = Double.isNaN(primary.getScoreError()) ? 0 : primary.getScoreError();
                measured.add(new Measured(variant, primary.getScore(), error));
                context.progress().say(name(), String.format(Locale.ROOT, "%s: %s ns/decision",
                        variant.label(), Numbers.of(primary.getScore())));
            }
        }
        return result(measured, log.getFileName().toString());
    }

    /**
     * Quick: one fork, short iterations, enough to smoke-test and roughly rank (its warm-up is too
     * short for a loaded machine, where the engine path was still twice its steady-state time after
     * 1 s). Full: two forks of more iterations, warmed up for 5 s. The forks get a fixed small heap so a shared machine's
     * other work does not size them.
     */
    static ChainedOptionsBuilder options(Variant variant, boolean quick) {
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(variant.include())
                .forks(quick ? 1 : 2)
                .warmupIterations(quick ? 2 : 5)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(quick ? 2 : 5)
                .measurementTime(TimeValue.seconds(1))
                .jvmArgs("-Xms256m", "-Xmx256m")
                .shouldFailOnError(true);
        if (variant.param() != null) {
            options.param(variant.param(), variant.value());
        }
        return options;
    }

    ScenarioResult result(List<Measured> measured, String logName) {
        Measured bucket4j = find(measured, "bucket4j", "NONE");
        ScenarioResult.Builder result = ScenarioResult.builder(this, "nanoseconds per decision");
        List<List<String>> rows = new ArrayList<>();
        List<Chart.Bar> nsBars = new ArrayList<>();
        List<Chart.Bar> rateBars = new ArrayList<>();
        for (Measured m : measured) {
            String key = m.variant().value() == null ? m.variant().method() : m.variant().method() + ":" + m.variant().value();
            double ratio = m.ns() / bucket4j.ns();
            double ratioError = ratioError(m, bucket4j);
            double perSecond = 1e9 / m.ns();
            result.figure(key + ".ns", m.ns(), "ns/decision");
            result.figure(key + ".error", m.error(), "ns/decision");
            result.figure(key + ".vsBucket4j", ratio, "x");
            result.figure(key + ".vsBucket4jError", ratioError, "x");
            rows.add(List.of(m.variant().label(), Numbers.of(m.ns()), Numbers.of(m.error()),
                    Numbers.of(perSecond / 1e6), Numbers.of(ratio) + "x ± " + Numbers.of(ratioError)));
            nsBars.add(new Chart.Bar(m.variant().label(), m.ns(), m.error()));
            rateBars.add(new Chart.Bar(m.variant().label(), perSecond / 1e6, 0));
        }
        result.table(new Table("One decision, single thread", List.of("limiter", "ns/decision", "± (99.9% CI)",
                "M decisions/s per core", "vs Bucket4j (± from both CIs)"), rows));
        result.chart(new Chart("Time per decision", "ns, ± 99.9% CI", nsBars));
        result.chart(new Chart("Decisions per second per core", "millions", rateBars));
        for (String algorithm : OURS) {
            result.target(Target.atMost(algorithm + " decision", find(measured, "ours", algorithm).ns(), CEILING_NS, "ns"));
        }
        Measured tokenBucket = find(measured, "ours", "token-bucket");
        double ratio = tokenBucket.ns() / bucket4j.ns();
        double ratioError = ratioError(tokenBucket, bucket4j);
        result.target(Target.atMost("token-bucket vs Bucket4j", ratio, BUCKET4J_RATIO_CEILING, "x"));
        if (Math.abs(ratio - BUCKET4J_RATIO_CEILING) < ratioError) {
            result.note("The token bucket's ratio to Bucket4j, " + Numbers.of(ratio) + "x ± " + Numbers.of(ratioError)
                    + ", spans " + Numbers.of(BUCKET4J_RATIO_CEILING) + "x: at this machine's load this run cannot tell "
                    + "whether the target is met; a full run (more iterations and forks) narrows the interval.");
        }
        result.note("Traffic: one request every " + AlgorithmBenchmarks.STEP_MS + " ms of simulated time against "
                + AlgorithmBenchmarks.LIMIT + " per minute (1.2x the sustained rate), state threaded from one decision "
                + "to the next, so about one request in six takes the deny path.");
        result.note("Our verdicts carry limit, remaining, reset and an exact Retry-After; Bucket4j is asked for the same "
                + "(tryConsumeAndReturnRemaining: remaining tokens and nanoseconds to wait) on a clock the benchmark moves, "
                + "so neither reads the system clock. The ratio column divides by Bucket4j without synchronization, "
                + "which matches ours: one key is only ever decided by one stream thread.");
        result.note("Guava's RateLimiter takes no clock, so it reads System.nanoTime and takes a lock on every call, "
                + "and its bursts are limited to one second of permits: it is shown for scale, not as an equal.");
        result.note("JMH's own output is in " + logName + " beside this report.");
        return result.build();
    }

    /** The half-width of a ratio's interval from its two intervals (relative errors add in quadrature). */
    static double ratioError(Measured m, Measured base) {
        if (m == base) {
            return 0;
        }
        return m.ns() / base.ns() * Math.hypot(m.error() / m.ns(), base.error() / base.ns());
    }

    private static Measured find(List<Measured> measured, String method, String value) {
        return measured.stream()
                .filter(m -> m.variant().method().equals(method) && (value == null || value.equals(m.variant().value())))
                .findFirst().orElseThrow(() -> new IllegalStateException("no measurement of " + method + " " + value));
    }
}

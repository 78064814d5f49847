package dev.quotaenforcer.bench;

import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** A short JMH run of one class's benchmarks alone, for the benchmark classes' own {@code main}. */
public final class ShortJmhRun {

    private ShortJmhRun() {
    }

    /** Runs the benchmarks of {@code benchmarks}: 1 fork, 3 warm-up and 5 measured iterations of 1 s. */
    public static void run(Class<?> benchmarks) throws RunnerException {
        new Runner(new OptionsBuilder()
                .include("^" + benchmarks.getName().replace(".", "\\.") + "\\.")
                .forks(1)
                .warmupIterations(3)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(5)
                .measurementTime(TimeValue.seconds(1))
                .build()).run();
    }
}

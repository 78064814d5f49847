package dev.quotaenforcer.bench;

/** One benchmark scenario of the {@code bench} command: it measures and returns its figures, never judges time itself. */
public interface Scenario {

    /** The name given to {@code --scenario}, e.g. {@code accuracy}. */
    String name();

    /** One line on what the scenario measures, for {@code --help} and the report. */
    String description();

    ScenarioResult run(BenchContext context) throws Exception;
}

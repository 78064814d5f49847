package dev.quotaenforcer.bench;

/** One benchmark scenario of the {@code bench} command: it measures and returns its figures, never judges time itself. */
public interface Scenario {

    /** The name given to {@code --scenario}, e.g. {@code accuracy}. */
    String name();

    /** One line on what the scenario measures, for {@code --help} and the report. */
    String description();

    ScenarioResult run(BenchContext context) throws Exception;

    /** Whether a run that names no scenario takes this one; one too long for every run is taken only when named. */
    default boolean inFullRun() {
        return true;
    }
}

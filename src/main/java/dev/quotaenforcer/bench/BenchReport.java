package dev.quotaenforcer.bench;

import java.util.List;

/** A whole {@code bench} run: when, how big, on what machine, and each scenario's result. */
public record BenchReport(String startedAt, boolean quick, long seed, Hardware hardware, List<ScenarioResult> scenarios,
                          double seconds) {

    public BenchReport {
        scenarios = List.copyOf(scenarios);
    }
}

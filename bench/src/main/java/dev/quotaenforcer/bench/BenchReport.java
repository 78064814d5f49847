package dev.quotaenforcer.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole {@code bench} run: when, how big, on what machine, with which enforcer settings given by
 * the user, and each scenario's result.
 */
public record BenchReport(String startedAt, boolean quick, long seed, Hardware hardware,
                          Map<String, String> enforcerSettings, List<ScenarioResult> scenarios, double seconds) {

    public BenchReport {
        enforcerSettings = Collections.unmodifiableMap(new LinkedHashMap<>(enforcerSettings));
        scenarios = List.copyOf(scenarios);
    }
}

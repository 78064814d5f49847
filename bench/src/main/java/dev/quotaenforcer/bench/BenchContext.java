package dev.quotaenforcer.bench;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What every scenario runs with: quick or full size, the seed of any generated traffic, where it may
 * leave files beside the report, where it tells the user how far it got, and the settings the user
 * gave for every enforcer a scenario starts (over the enforcer's defaults, under what the scenario sets),
 * and what of the latency scenario to measure.
 */
public record BenchContext(boolean quick, long seed, Path outDir, Progress progress, Map<String, String> enforcerSettings,
                           LatencyFocus latencyFocus) {

    public BenchContext {
        enforcerSettings = Collections.unmodifiableMap(new LinkedHashMap<>(enforcerSettings));
    }

    public BenchContext(boolean quick, long seed, Path outDir, Progress progress) {
        this(quick, seed, outDir, progress, Map.of(), LatencyFocus.ALL);
    }
}

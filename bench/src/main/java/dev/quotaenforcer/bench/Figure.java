package dev.quotaenforcer.bench;

/** One measured number with its unit, as report.json carries it for tools to read. */
public record Figure(double value, String unit) {
}

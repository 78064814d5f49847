package dev.quotaenforcer.bench;

/** A figure the issue sets a ceiling for, with whether this run met it. */
public record Target(String name, double measured, double ceiling, String unit, boolean met) {

    public static Target atMost(String name, double measured, double ceiling, String unit) {
        return new Target(name, measured, ceiling, unit, measured <= ceiling);
    }
}

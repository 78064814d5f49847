package dev.quotaenforcer.bench;

/**
 * A figure the issue sets a bound for, with whether this run met it.
 *
 * @param bound what the figure must stay within: a ceiling, or a floor when {@code floor} is true
 */
public record Target(String name, double measured, double bound, boolean floor, String unit, boolean met) {

    public static Target atMost(String name, double measured, double ceiling, String unit) {
        return new Target(name, measured, ceiling, false, unit, measured <= ceiling);
    }

    public static Target atLeast(String name, double measured, double floor, String unit) {
        return new Target(name, measured, floor, true, unit, measured >= floor);
    }
}

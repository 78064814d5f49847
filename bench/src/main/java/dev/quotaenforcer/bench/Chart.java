package dev.quotaenforcer.bench;

import java.util.List;

/** A bar chart of one quantity across the variants a scenario measured, drawn into the report's SVG. */
public record Chart(String title, String unit, List<Bar> bars) {

    /** One bar: its value and the half-width of its error interval (0 when there is none). */
    public record Bar(String label, double value, double error) {
    }

    public Chart {
        bars = List.copyOf(bars);
    }
}

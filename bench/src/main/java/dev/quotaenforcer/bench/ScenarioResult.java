package dev.quotaenforcer.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a scenario measured, in the one shape report.md, report.json and the SVG plots are written
 * from: named figures, tables to read, charts to draw, targets met or missed, and notes.
 *
 * @param seconds how long the scenario ran, filled in by the runner
 */
public record ScenarioResult(String name, String title, String description, Map<String, Figure> figures,
                             List<Table> tables, List<Chart> charts, List<Target> targets, List<String> notes,
                             double seconds) {

    public ScenarioResult {
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        tables = List.copyOf(tables);
        charts = List.copyOf(charts);
        targets = List.copyOf(targets);
        notes = List.copyOf(notes);
    }

    public ScenarioResult withSeconds(double elapsed) {
        return new ScenarioResult(name, title, description, figures, tables, charts, targets, notes, elapsed);
    }

    public static Builder builder(Scenario scenario, String title) {
        return new Builder(scenario.name(), title, scenario.description());
    }

    /** Collects a scenario's output in the order it should be read. */
    public static final class Builder {
        private final String name;
        private final String title;
        private final String description;
        private final Map<String, Figure> figures = new LinkedHashMap<>();
        private final List<Table> tables = new ArrayList<>();
        private final List<Chart> charts = new ArrayList<>();
        private final List<Target> targets = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();

        private Builder(String name, String title, String description) {
            this.name = name;
            this.title = title;
            this.description = description;
        }

        public Builder figure(String key, double value, String unit) {
            figures.put(key, new Figure(value, unit));
            return this;
        }

        public Builder table(Table table) {
            tables.add(table);
            return this;
        }

        public Builder chart(Chart chart) {
            charts.add(chart);
            return this;
        }

        public Builder target(Target target) {
            targets.add(target);
            return this;
        }

        public Builder note(String note) {
            notes.add(note);
            return this;
        }

        public ScenarioResult build() {
            return new ScenarioResult(name, title, description, figures, tables, charts, targets, notes, 0);
        }
    }
}

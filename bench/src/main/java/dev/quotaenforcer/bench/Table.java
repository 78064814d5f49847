package dev.quotaenforcer.bench;

import java.util.List;

/** A table of a scenario's report section; cells are already formatted for reading. */
public record Table(String title, List<String> columns, List<List<String>> rows) {

    public Table {
        columns = List.copyOf(columns);
        rows = rows.stream().map(List::copyOf).toList();
        for (List<String> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("row " + row + " does not have the " + columns.size() + " columns " + columns);
            }
        }
    }
}

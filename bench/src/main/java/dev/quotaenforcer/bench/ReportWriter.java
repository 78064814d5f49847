package dev.quotaenforcer.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** Writes a run as report.md (to read), report.json (for tools) and one SVG plot per scenario that has charts. */
public final class ReportWriter {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReportWriter() {
    }

    /** Writes every file into {@code dir} (created if missing) and returns their paths. */
    public static List<Path> write(BenchReport report, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (ScenarioResult scenario : report.scenarios()) {
            if (!scenario.charts().isEmpty()) {
                written.add(writeString(dir.resolve(svgName(scenario)),
                        SvgChart.render(scenario.name() + ": " + scenario.title(), scenario.charts())));
            }
        }
        written.add(writeString(dir.resolve("report.json"), JSON.writeValueAsString(report) + "\n"));
        written.add(writeString(dir.resolve("report.md"), markdown(report)));
        return written;
    }

    static String svgName(ScenarioResult scenario) {
        return scenario.name() + ".svg";
    }

    static String markdown(BenchReport report) {
        StringBuilder md = new StringBuilder();
        md.append("# quota-enforcer benchmarks\n\n");
        md.append("Started ").append(report.startedAt()).append(", ").append(report.quick() ? "quick" : "full")
                .append(" run, seed ").append(report.seed()).append(", took ").append(Numbers.of(report.seconds()))
                .append(" s.\n\n");
        md.append("**Hardware:** ").append(report.hardware().describe()).append(".\n\n");
        if (!report.enforcerSettings().isEmpty()) {
            md.append("**Enforcer settings given with --set** (over the enforcer's defaults, under what a scenario sets itself): ");
            md.append(report.enforcerSettings().entrySet().stream().map(e -> "`" + e.getKey() + "=" + e.getValue() + "`")
                    .collect(Collectors.joining(", "))).append(".\n\n");
        }
        md.append("Absolute figures hold for this machine at this load only; compare the ratios, which were measured "
                + "side by side in the same run.\n");
        for (ScenarioResult scenario : report.scenarios()) {
            section(md, scenario);
        }
        return md.toString();
    }

    private static void section(StringBuilder md, ScenarioResult scenario) {
        md.append("\n## ").append(scenario.name()).append(": ").append(scenario.title()).append("\n\n");
        md.append(scenario.description()).append(" (").append(Numbers.of(scenario.seconds())).append(" s)\n");
        for (Table table : scenario.tables()) {
            md.append("\n### ").append(table.title()).append("\n\n");
            row(md, table.columns());
            md.append("|").append("---|".repeat(table.columns().size())).append("\n");
            table.rows().forEach(row -> row(md, row));
        }
        if (!scenario.targets().isEmpty()) {
            md.append("\n### Targets\n\n| target | measured | bound | |\n|---|---|---|---|\n");
            for (Target target : scenario.targets()) {
                row(md, List.of(target.name(), Numbers.of(target.measured()) + " " + target.unit(),
                        (target.floor() ? "at least " : "at most ") + Numbers.of(target.bound()) + " " + target.unit(),
                        target.met() ? "met" : "**missed**"));
            }
        }
        if (!scenario.charts().isEmpty()) {
            md.append("\n![").append(scenario.name()).append("](").append(svgName(scenario)).append(")\n");
        }
        if (!scenario.notes().isEmpty()) {
            md.append("\n");
            scenario.notes().forEach(note -> md.append("- ").append(note).append("\n"));
        }
    }

    private static void row(StringBuilder md, List<String> cells) {
        md.append("|");
        cells.forEach(cell -> md.append(" ").append(cell.replace("|", "\\|")).append(" |"));
        md.append("\n");
    }

    private static Path writeString(Path path, String content) throws IOException {
        return Files.writeString(path, content, StandardCharsets.UTF_8);
    }
}

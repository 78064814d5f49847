package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class ReportWriterTest {

    private static final Hardware HARDWARE = new Hardware(2, "Test CPU @ 1GHz", "Test VM 17", "Linux 6 amd64", 512, 1.5);

    @TempDir
    Path dir;

    private static BenchReport report() {
        return report(Map.of());
    }

    private static BenchReport report(Map<String, String> enforcerSettings) {
        ScenarioResult scenario = new ScenarioResult("demo", "a demo scenario", "Measures <nothing> & more.",
                Map.of("speed.ns", new Figure(42.5, "ns/decision")),
                List.of(new Table("Speeds", List.of("limiter", "ns"), List.of(List.of("ours | fast", "42.5")))),
                List.of(new Chart("Time per decision", "ns", List.of(
                        new Chart.Bar("ours <fast>", 42.5, 2.5), new Chart.Bar("theirs", 85, 0)))),
                List.of(Target.atMost("ours under 50 ns", 42.5, 50, "ns"), Target.atMost("ours under 40 ns", 42.5, 40, "ns")),
                List.of("a note"), 1.25);
        return new BenchReport("2026-11-30T12:00:00Z", true, 7, HARDWARE, enforcerSettings, List.of(scenario), 3.5);
    }

    @Test
    void writesMarkdownJsonAndOneSvgPerScenarioWithCharts() throws Exception {
        List<Path> written = ReportWriter.write(report(), dir);

        assertEquals(List.of(dir.resolve("demo.svg"), dir.resolve("report.json"), dir.resolve("report.md")), written);
        written.forEach(path -> assertTrue(Files.isRegularFile(path), path + " missing"));
    }

    @Test
    void markdownHasTheHardwareTablesTargetsAndPlot() throws Exception {
        ReportWriter.write(report(), dir);
        String md = Files.readString(dir.resolve("report.md"));

        assertTrue(md.contains("**Hardware:** 2 cores (Test CPU @ 1GHz), Test VM 17, Linux 6 amd64"), md);
        assertTrue(md.contains("quick run, seed 7, took 3.50 s"), md);
        assertTrue(md.contains("## demo: a demo scenario"), md);
        assertTrue(md.contains("| limiter | ns |\n|---|---|\n| ours \\| fast | 42.5 |"), md);
        assertTrue(md.contains("| ours under 50 ns | 42.5 ns | at most 50 ns | met |"), md);
        assertTrue(md.contains("| ours under 40 ns | 42.5 ns | at most 40 ns | **missed** |"), md);
        assertTrue(md.contains("![demo](demo.svg)"), md);
        assertTrue(md.contains("- a note"), md);
    }

    @Test
    void reportListsTheEnforcerSettingsGivenWithSetInTheirOrderAndOnlyWhenThereAreAny() throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("statestore.cache.max.bytes", "0");
        settings.put("producer.linger.ms", "5");
        ReportWriter.write(report(settings), dir);

        assertTrue(Files.readString(dir.resolve("report.md")).contains("**Enforcer settings given with --set** (over "
                + "the enforcer's defaults, under what a scenario sets itself): `statestore.cache.max.bytes=0`, "
                + "`producer.linger.ms=5`."));
        assertEquals("5", new ObjectMapper().readTree(dir.resolve("report.json").toFile())
                .at("/enforcerSettings/producer.linger.ms").asText());

        ReportWriter.write(report(), dir);
        assertFalse(Files.readString(dir.resolve("report.md")).contains("--set"));
    }

    @Test
    void jsonCarriesEveryFigureAsANumber() throws Exception {
        ReportWriter.write(report(), dir);
        JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());

        assertTrue(json.get("quick").asBoolean());
        assertEquals(2, json.at("/hardware/cores").asInt());
        JsonNode scenario = json.at("/scenarios/0");
        assertEquals("demo", scenario.get("name").asText());
        assertTrue(scenario.at("/figures/speed.ns/value").isNumber());
        assertEquals(42.5, scenario.at("/figures/speed.ns/value").asDouble());
        assertFalse(scenario.at("/targets/1/met").asBoolean());
        assertEquals(1.25, scenario.get("seconds").asDouble());
    }

    @Test
    void svgIsWellFormedWithOneBarPerValueScaledToTheLongest() throws Exception {
        ReportWriter.write(report(), dir);
        Document svg = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("demo.svg").toFile());

        NodeList rects = svg.getElementsByTagName("rect");
        List<Element> bars = new java.util.ArrayList<>();
        for (int i = 0; i < rects.getLength(); i++) {
            Element rect = (Element) rects.item(i);
            if ("bar".equals(rect.getAttribute("class"))) {
                bars.add(rect);
            }
        }
        assertEquals(2, bars.size());
        assertEquals(SvgChart.BAR_AREA, Double.parseDouble(bars.get(1).getAttribute("width")), 0.1);
        assertEquals(SvgChart.BAR_AREA * 42.5 / 85, Double.parseDouble(bars.get(0).getAttribute("width")), 0.1);
        assertTrue(svg.getDocumentElement().getTextContent().contains("ours <fast>"));
    }

    @Test
    void anAllZeroChartDrawsEmptyBars() {
        Chart zero = new Chart("nothing", "ns", List.of(new Chart.Bar("a", 0, 0)));
        assertEquals(0, SvgChart.scaleOf(zero));
        assertTrue(SvgChart.render("t", List.of(zero)).contains("width=\"0.0\""));
    }

    @Test
    void numbersShowTheDigitsAMeasurementDeserves() {
        assertEquals("1684216", Numbers.of(1684216));
        assertEquals("123.5", Numbers.of(123.46));
        assertEquals("42.5", Numbers.of(42.5));
        assertEquals("11694", Numbers.of(11694.3));
        assertEquals("3.14", Numbers.of(3.14159));
        assertEquals("0.0030%", Numbers.percent(0.00003));
    }

    @Test
    void cpuModelComesFromCpuinfoOrIsUnknown() throws Exception {
        Path cpuinfo = dir.resolve("cpuinfo");
        Files.writeString(cpuinfo, "processor\t: 0\nmodel name\t: Some CPU @ 2.80GHz\nflags\t: fpu\n");
        assertEquals("Some CPU @ 2.80GHz", Hardware.cpuModel(cpuinfo));
        assertEquals("unknown CPU", Hardware.cpuModel(dir.resolve("absent")));
    }
}

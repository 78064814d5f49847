package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.bench.BurstyTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --quick} from the shaded bench jar, as a user runs it: the accuracy scenario, the JMH
 * algorithms scenario (whose forks must find the benchmarks in the jar), the throughput scenario
 * (on its own embedded broker) and the redis scenario (on a redis-server it starts, or skipped, saying
 * so) write a report whose numbers are positive and agree with each other. The latency scenario is
 * left out: its quick run alone takes minutes. Nothing here judges how fast anything was.
 */
class BenchCommandIT {

    private static final Path JAR = Path.of("target", "quota-enforcer-bench.jar");
    private static final long SEED = 42;
    private static final int QUICK_KEYS = 200;

    @TempDir
    static Path dir;

    private static JarProcess.Result result;
    private static JsonNode report;

    @BeforeAll
    static void runBench() throws Exception {
        Path out = dir.resolve("bench");
        // The timeout only stops a hung run; it is no judgement of speed.
        result = JarProcess.run(List.of(JarProcess.JAVA, "-jar",
                        JAR.toString(), "--quick", "--scenario", "accuracy,algorithms,throughput,redis",
                        "--seed", Long.toString(SEED), "--out", out.toString()),
                dir.resolve("bench.log"), Map.of(), null, Duration.ofMinutes(15));
        assertEquals(0, result.status(), result.output());
        report = new ObjectMapper().readTree(out.resolve("report.json").toFile());
    }

    private static JsonNode scenario(String name) {
        for (JsonNode scenario : report.get("scenarios")) {
            if (scenario.get("name").asText().equals(name)) {
                return scenario;
            }
        }
        throw new AssertionError("no scenario " + name + " in " + report);
    }

    private static long figure(JsonNode scenario, String name) {
        JsonNode value = scenario.at("/figures/" + name + "/value");
        assertTrue(value.isNumber(), name + " missing from " + scenario.get("figures"));
        return value.asLong();
    }

    @Test
    void showsProgressAndWritesEveryReportFile() throws Exception {
        assertTrue(result.output().contains("accuracy: replayed " + QUICK_KEYS + "/" + QUICK_KEYS + " keys"), result.output());
        assertTrue(result.output().contains("algorithms: JMH 1/9"), result.output());
        Path out = dir.resolve("bench");
        String md = Files.readString(out.resolve("report.md"));
        assertTrue(md.contains("**Hardware:** " + Runtime.getRuntime().availableProcessors() + " cores"), md);
        assertTrue(md.contains("## accuracy:") && md.contains("## algorithms:") && md.contains("## throughput:"), md);
        for (String svg : List.of("accuracy.svg", "algorithms.svg", "throughput.svg")) {
            DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(out.resolve(svg).toFile());
        }
        assertTrue(report.get("quick").asBoolean());
        assertEquals(SEED, report.get("seed").asLong());
    }

    @Test
    void accuracyCountsEveryRequestOfTheSeededTraceOnce() {
        JsonNode accuracy = scenario("accuracy");
        BurstyTrace trace = new BurstyTrace(SEED, QUICK_KEYS, Duration.ofHours(1).toMillis(), 100, 60_000);
        long replayed = 0;
        for (int key = 0; key < trace.keys(); key++) {
            replayed += trace.times(key).length;
        }
        long requests = figure(accuracy, "requests");
        assertEquals(replayed, requests);
        assertEquals(QUICK_KEYS, figure(accuracy, "keys"));
        long counterAllowed = figure(accuracy, "counterAllowed");
        assertTrue(counterAllowed > 0 && counterAllowed < requests);
        assertEquals(figure(accuracy, "logAllowed"),
                counterAllowed - figure(accuracy, "counterOnlyAllowed") + figure(accuracy, "logOnlyAllowed"));
        long misjudged = figure(accuracy, "falseAllows") + figure(accuracy, "falseDenies");
        assertTrue(misjudged > 0 && misjudged <= requests);
        assertEquals((double) misjudged / requests, accuracy.at("/figures/misjudgedShare/value").asDouble(), 1e-12);
        assertEquals(100, figure(accuracy, "logMaxWindow"));
        assertTrue(figure(accuracy, "counterMaxWindow") >= figure(accuracy, "logMaxWindow"));
    }

    @Test
    void algorithmsMeasuredEveryVariantWithPositiveTimesAndConsistentRatios() {
        JsonNode algorithms = scenario("algorithms");
        List<String> measured = new ArrayList<>();
        for (Map.Entry<String, JsonNode> figure : algorithms.get("figures").properties()) {
            if (figure.getKey().endsWith(".ns")) {
                double ns = figure.getValue().get("value").asDouble();
                assertTrue(ns > 0 && Double.isFinite(ns), figure.toString());
                measured.add(figure.getKey());
            }
        }
        assertEquals(9, measured.size(), measured.toString());
        double bucket4j = algorithms.at("/figures/bucket4j:NONE.ns/value").asDouble();
        double tokenBucket = algorithms.at("/figures/ours:token-bucket.ns/value").asDouble();
        assertEquals(tokenBucket / bucket4j, algorithms.at("/figures/ours:token-bucket.vsBucket4j/value").asDouble(), 1e-9);
        assertEquals(6, algorithms.get("targets").size());
        for (JsonNode target : algorithms.get("targets")) {
            assertEquals(met(target), target.get("met").asBoolean(), target.toString());
        }
    }

    private static boolean met(JsonNode target) {
        double measured = target.get("measured").asDouble();
        double bound = target.get("bound").asDouble();
        return target.get("floor").asBoolean() ? measured >= bound : measured <= bound;
    }

    @Test
    void throughputDecidedEveryRequestOnceAndMeasuredBothApplicationsUnderBothGuarantees() {
        JsonNode throughput = scenario("throughput");
        // The scenario itself fails the run unless the enforcer made exactly one decision per request.
        assertEquals(100_000, figure(throughput, "events"));
        for (String guarantee : List.of("exactlyOnce", "atLeastOnce")) {
            double copy = throughput.at("/figures/" + guarantee + "ByteCopyPerSecond/value").asDouble();
            double enforcer = throughput.at("/figures/" + guarantee + "EnforcerPerSecond/value").asDouble();
            assertTrue(copy > 0 && Double.isFinite(copy) && enforcer > 0 && Double.isFinite(enforcer), throughput.toString());
            assertEquals(enforcer / copy, throughput.at("/figures/" + guarantee + "ShareOfCeiling/value").asDouble(), 1e-9);
            double copyCpu = throughput.at("/figures/" + guarantee + "ByteCopyCpuMicrosPerRecord/value").asDouble();
            double enforcerCpu = throughput.at("/figures/" + guarantee + "EnforcerCpuMicrosPerDecision/value").asDouble();
            assertTrue(copyCpu > 0 && Double.isFinite(copyCpu) && enforcerCpu > 0 && Double.isFinite(enforcerCpu),
                    "each application's threads used CPU: " + throughput);
            double tunedCopy = throughput.at("/figures/" + guarantee + "TunedByteCopyPerSecond/value").asDouble();
            assertTrue(tunedCopy > 0 && Double.isFinite(tunedCopy), "the byte-copy ran again with the enforcer's producer settings");
            assertEquals(enforcer / tunedCopy, throughput.at("/figures/" + guarantee + "ShareOfTunedCeiling/value").asDouble(), 1e-9);
        }
        // Under exactly-once every decision (or copy) is committed when the run ends, so each took at least one record.
        for (String written : List.of("exactlyOnceByteCopyWrittenPerRecord", "exactlyOnceEnforcerWrittenPerDecision")) {
            assertTrue(throughput.at("/figures/" + written + "/value").asDouble() >= 1.0, throughput.toString());
        }
        // Share of the ceiling and CPU over the byte-copy's under each guarantee, records written and rate under exactly-once.
        assertEquals(6, throughput.get("targets").size());
        JsonNode written = table(throughput, "Records and bytes the enforcer wrote per decision, by topic");
        JsonNode decisions = null;
        for (JsonNode row : written.get("rows")) {
            decisions = row.get(0).asText().equals("bench.decisions") ? row : decisions;
        }
        assertNotNull(decisions, "the decisions topic is among the topics written: " + written);
        for (int column = 1; column < decisions.size(); column += 2) {
            assertTrue(Double.parseDouble(decisions.get(column).asText()) >= 1.0, "a decision per request: " + written);
            // A decision's JSON is over 100 bytes; the enforcer's producer compresses its batches (Snappy by
            // default), and the log grows by a fraction of that.
            double decisionBytes = Double.parseDouble(decisions.get(column + 1).asText());
            assertTrue(decisionBytes > 0 && decisionBytes < 100, "a decision's bytes, compressed: " + written);
        }
        for (String guarantee : List.of("exactlyOnce", "atLeastOnce")) {
            double copyBytes = throughput.at("/figures/" + guarantee + "ByteCopyBytesPerRecord/value").asDouble();
            double enforcerBytes = throughput.at("/figures/" + guarantee + "EnforcerBytesPerDecision/value").asDouble();
            assertTrue(copyBytes > 0 && Double.isFinite(copyBytes) && enforcerBytes > 0 && Double.isFinite(enforcerBytes),
                    "both applications' logs grew: " + throughput);
        }
        JsonNode profile = table(throughput, "Where the stream thread's time goes");
        JsonNode samples = profile.get("rows").get(profile.get("rows").size() - 1);
        for (int column = 1; column < samples.size(); column++) {
            assertTrue(Double.parseDouble(samples.get(column).asText()) > 0, "each run's stream thread was sampled: " + profile);
        }
        JsonNode times = table(throughput, "What the stream thread did with each run's wall-clock time");
        JsonNode columns = times.get("columns");
        for (JsonNode row : times.get("rows")) {
            String label = row.get(0).asText();
            for (int column = 1; column < row.size(); column++) {
                double share = Double.parseDouble(row.get(column).asText().replace("%", ""));
                if (label.startsWith("stream thread running")
                        || label.contains("committing") && columns.get(column).asText().endsWith("exactly_once_v2")) {
                    assertTrue(share > 0 && share <= 100, "each run's stream thread ran, and committed under exactly-once: " + times);
                }
            }
        }
        for (JsonNode target : throughput.get("targets")) {
            assertEquals(met(target), target.get("met").asBoolean(), target.toString());
        }
    }

    @Test
    void redisCheckedItsScriptBeforeTimingItOrSaidWhyItSkipped() {
        JsonNode redis = scenario("redis");
        if (redis.get("title").asText().startsWith("skipped")) {
            assertEquals("skipped: redis-server not found on PATH (install Debian's redis-server)", redis.get("title").asText());
            assertEquals(0, redis.get("figures").size());
            return;
        }
        assertEquals(10, figure(redis, "checkBurstAllowed"));
        assertTrue(redis.at("/figures/closedLoopPerSecond/value").asDouble() > 0, redis.toString());
        for (String load : List.of("1000", "5000", "20000")) {
            double p50 = redis.at("/figures/" + load + ".p50Ms/value").asDouble();
            double p99 = redis.at("/figures/" + load + ".p99Ms/value").asDouble();
            double p999 = redis.at("/figures/" + load + ".p999Ms/value").asDouble();
            double max = redis.at("/figures/" + load + ".maxMs/value").asDouble();
            assertTrue(0 < p50 && p50 <= p99 && p99 <= p999 && p999 <= max, redis.toString());
        }
        assertTrue(redis.get("notes").toString().contains("need the latency scenario in the same run"), redis.toString());
    }

    /** The scenario's table whose title starts with {@code title}. */
    private static JsonNode table(JsonNode scenario, String title) {
        for (JsonNode table : scenario.get("tables")) {
            if (table.get("title").asText().startsWith(title)) {
                return table;
            }
        }
        throw new AssertionError("no table titled " + title + " in " + scenario);
    }
}

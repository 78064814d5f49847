package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.options.Options;

class AlgorithmsScenarioTest {

    private final AlgorithmsScenario scenario = new AlgorithmsScenario();

    /** Every variant measured at {@code ns}, but our token bucket at {@code tokenBucketNs} and Bucket4j at 50 ns. */
    private static List<AlgorithmsScenario.Measured> measured(double ns, double tokenBucketNs) {
        List<AlgorithmsScenario.Measured> measured = new ArrayList<>();
        for (AlgorithmsScenario.Variant variant : AlgorithmsScenario.variants()) {
            double value = "token-bucket".equals(variant.value()) ? tokenBucketNs
                    : "NONE".equals(variant.value()) ? 50 : ns;
            measured.add(new AlgorithmsScenario.Measured(variant, value, 1));
        }
        return measured;
    }

    @Test
    void ratiosAreToUnsynchronizedBucket4jAndTargetsFollowTheCeilings() {
        ScenarioResult result = scenario.result(measured(80, 40), "jmh.log");

        assertEquals(0.8, result.figures().get("ours:token-bucket.vsBucket4j").value(), 1e-9);
        assertEquals(1.6, result.figures().get("ours:fixed-window.vsBucket4j").value(), 1e-9);
        assertEquals(1.0, result.figures().get("bucket4j:NONE.vsBucket4j").value(), 1e-9);
        assertEquals(0.8 * Math.hypot(1 / 40.0, 1 / 50.0), result.figures().get("ours:token-bucket.vsBucket4jError").value(),
                1e-9);
        assertEquals(6, result.targets().size());
        assertTrue(result.targets().stream().allMatch(Target::met));
    }

    @Test
    void aRatioWhoseIntervalSpansTheCeilingIsSaidToBeInconclusive() {
        List<AlgorithmsScenario.Measured> measured = new ArrayList<>();
        for (AlgorithmsScenario.Variant variant : AlgorithmsScenario.variants()) {
            double value = "token-bucket".equals(variant.value()) ? 49 : 50;
            measured.add(new AlgorithmsScenario.Measured(variant, value, 10));
        }
        ScenarioResult result = scenario.result(measured, "jmh.log");

        assertEquals(0, result.figures().get("bucket4j:NONE.vsBucket4jError").value());
        assertTrue(result.targets().get(5).met());
        assertTrue(result.notes().stream().anyMatch(note -> note.contains("cannot tell whether the target is met")),
                result.notes().toString());
        assertFalse(scenario.result(measured(80, 40), "jmh.log").notes().stream()
                .anyMatch(note -> note.contains("cannot tell")));
    }

    @Test
    void aSlowAlgorithmOrATokenBucketSlowerThanBucket4jMissesItsTarget() {
        ScenarioResult result = scenario.result(measured(120, 110), "jmh.log");

        assertFalse(result.targets().stream().anyMatch(Target::met));
        assertEquals(2.2, result.targets().get(5).measured(), 1e-9);
    }

    @Test
    void eachVariantRunsExactlyItsBenchmarkWithItsParameter() {
        AlgorithmsScenario.Variant log = AlgorithmsScenario.variants().stream()
                .filter(v -> "sliding-window-log".equals(v.value())).findFirst().orElseThrow();
        Options options = AlgorithmsScenario.options(log, true).build();

        assertEquals(List.of("^dev\\.quotaenforcer\\.bench\\.AlgorithmBenchmarks\\.ours$"), options.getIncludes());
        assertEquals(List.of("sliding-window-log"), new ArrayList<>(options.getParameter("algorithm").get()));
        assertEquals(1, options.getForkCount().get());
        assertTrue("AlgorithmBenchmarks.ours".matches(log.include().substring(log.include().indexOf("Alg"))));
    }
}

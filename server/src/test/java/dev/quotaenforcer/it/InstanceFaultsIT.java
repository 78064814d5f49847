package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Enforcer instances as separate JVMs, with the production defaults (exactly-once v2), killed,
 * frozen and scaled under steady traffic on the test broker; after each case {@link FaultVerifier}
 * checks every request decided exactly once, as an independent model of the plans decides it, and
 * no transaction left open. Each case prints its figures ({@code fault-suite | ...}); a failed case keeps
 * its working directory, with every instance's log, under the system temporary directory.
 */
@ExtendWith(KafkaBroker.class)
class InstanceFaultsIT {

    @ParameterizedTest(name = "state directory {0}, {1} standby replicas")
    @CsvSource({"kept, 0", "wiped, 1"})
    void killNineOfOneOfTwoInstancesThreeTimesDuringTrafficLosesAndDoublesNothing(String stateDir, int standbys,
                                                                                  TestCluster cluster, @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path work)
            throws Exception {
        boolean keep = stateDir.equals("kept");
        Map<String, Object> settings = Map.of(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbys);
        String what = "kill -9 x3, state directory " + stateDir + ", " + standbys + " standby replicas";
        try (FaultScenario scenario = FaultScenario.prepare(cluster, work)) {
            Path[] dirs = {scenario.freshStateDir("a"), scenario.freshStateDir("b")};
            EnforcerJvm[] instances = {scenario.start("a", dirs[0], settings), scenario.start("b", dirs[1], settings)};
            scenario.startLoad();
            scenario.trafficFor(450);
            List<Long> faults = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                int victim = round % 2 == 0 ? 1 : 0;
                faults.add(System.nanoTime());
                instances[victim].kill();
                scenario.trafficFor(150);
                Path dir = keep ? dirs[victim] : scenario.freshStateDir(instances[victim].name());
                instances[victim] = scenario.start(instances[victim].name(), dir, settings);
                scenario.trafficFor(450);
            }
            List<SteadyLoad.Sent> sent = scenario.finish(what);
            FaultScenario.report(what, "fault to every request of the next second decided: "
                    + faults.stream().map(f -> scenario.recoveryAfter(f, sent).toMillis() + " ms").toList());
        }
    }

    @Test
    void crashWithATransactionProvablyOpenAbortsItAndTheRestartDecidesItsRequestsOnce(TestCluster cluster,
                                                                                     @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path work) throws Exception {
        try (FaultScenario scenario = FaultScenario.prepare(cluster, work);
             DecisionWatch uncommitted = DecisionWatch.uncommitted(cluster)) {
            Path dir = scenario.freshStateDir("a");
            // Commits a minute apart keep each transaction open long enough to be seen open.
            EnforcerJvm slow = scenario.start("a", dir, Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 60_000,
                    StreamsConfig.producerPrefix("transaction.timeout.ms"), 120_000));
            scenario.startLoad();
            scenario.trafficFor(300);
            TestCluster.awaitCondition("decisions visible read_uncommitted that read_committed does not show", () ->
                    uncommitted.decided() > scenario.watch().decided() + 100, Duration.ofSeconds(60));
            int open = uncommitted.decided() - scenario.watch().decided();
            long fault = System.nanoTime();
            slow.kill();
            scenario.trafficFor(300);
            scenario.start("a", dir);
            scenario.trafficFor(450);
            List<SteadyLoad.Sent> sent = scenario.finish("kill -9 inside an open transaction");
            FaultScenario.report("kill -9 inside an open transaction", open + " decisions visible uncommitted only at the"
                    + " kill; fault to every request of the next second decided: "
                    + scenario.recoveryAfter(fault, sent).toMillis() + " ms");
        }
    }

    @ParameterizedTest(name = "{0} standby replicas")
    @ValueSource(ints = {0, 1})
    void scalingOneToThreeAndBackDuringTrafficLosesAndDoublesNothing(int standbys, TestCluster cluster, @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path work)
            throws Exception {
        Map<String, Object> settings = Map.of(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbys);
        try (FaultScenario scenario = FaultScenario.prepare(cluster, work)) {
            scenario.start("a", scenario.freshStateDir("a"), settings);
            scenario.startLoad();
            scenario.trafficFor(450);
            EnforcerJvm b = scenario.start("b", scenario.freshStateDir("b"), settings);
            scenario.trafficFor(450);
            EnforcerJvm c = scenario.start("c", scenario.freshStateDir("c"), settings);
            scenario.trafficFor(450);
            long cStopped = System.nanoTime();
            c.stop();
            scenario.trafficFor(450);
            long bStopped = System.nanoTime();
            b.stop();
            scenario.trafficFor(450);
            String what = "scale 1-2-3-2-1, " + standbys + " standby replicas";
            List<SteadyLoad.Sent> sent = scenario.finish(what);
            FaultScenario.report(what, "scale-in to every request of the next second decided: "
                    + scenario.recoveryAfter(cStopped, sent).toMillis() + " ms, "
                    + scenario.recoveryAfter(bStopped, sent).toMillis() + " ms");
        }
    }

    @Test
    void instanceFrozenPastItsSessionTimeoutIsFencedAndCommitsNothingTwice(TestCluster cluster, @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path work)
            throws Exception {
        try (FaultScenario scenario = FaultScenario.prepare(cluster, work)) {
            scenario.start("a", scenario.freshStateDir("a"));
            EnforcerJvm b = scenario.start("b", scenario.freshStateDir("b"));
            scenario.startLoad();
            scenario.trafficFor(450);
            long fault = System.nanoTime();
            b.freeze();
            // Frozen a little longer than the session timeout: b's tasks move to a.
            scenario.trafficFor((int) (FaultScenario.RATE_PER_SECOND * (FaultScenario.SESSION_TIMEOUT.toSeconds() + 5)));
            b.thaw();
            scenario.trafficFor(900);
            assertTrue(b.alive(), () -> "the thawed instance rejoins rather than dies; its output:\n" + b.tail());
            List<SteadyLoad.Sent> sent = scenario.finish("SIGSTOP past the session timeout");
            FaultScenario.report("SIGSTOP past the session timeout", "freeze to every request of the next second decided: "
                    + scenario.recoveryAfter(fault, sent).toMillis() + " ms");
        }
    }

    @Test
    void aFreshApplicationReplayingTheSameInputDecidesEveryKeyPlacedInOrderTheSame(TestCluster cluster, @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path work)
            throws Exception {
        try (FaultScenario scenario = FaultScenario.prepare(cluster, work)) {
            EnforcerJvm a = scenario.start("a", scenario.freshStateDir("a"));
            scenario.startLoad();
            scenario.trafficFor(450);
            a.kill();
            scenario.start("a", scenario.freshStateDir("a2"));
            scenario.trafficFor(450);
            scenario.finish("replay: the first application");
            FaultVerifier first = scenario.verifier();
            Map<String, List<String>> before = first.decisionsByKey();
            String replayId = scenario.applicationId() + "-replay";
            FaultVerifier replay = first.forNextApplication(replayId);
            try (EnforcerJvm again = EnforcerJvm.start(cluster, replayId, "replay", scenario.freshStateDir("replay"), work,
                    Map.of())) {
                again.awaitReady();
                FaultVerifier.Result replayed = replay.awaitSettled(Duration.ofSeconds(120));
                replayed.assertExact("replay by a fresh application id");
                Map<String, List<String>> after = replay.decisionsByKey();
                int compared = 0;
                for (Map.Entry<String, SteadyLoad.Placement> key : scenario.keys().entrySet()) {
                    // An unkeyed key's requests sit on every partition: the order they are re-keyed in is the
                    // order its partitions are read, which no run repeats; the model judged each run on its own.
                    if (key.getValue() != SteadyLoad.Placement.UNKEYED) {
                        assertEquals(before.get(key.getKey()), after.get(key.getKey()), key.getKey());
                        compared += before.get(key.getKey()).size();
                    }
                }
                again.stop();
                assertEquals(List.of(), replay.openTransactions(), "transactions of the replay left open");
                FaultScenario.report("replay by a fresh application id", replayed.figures() + "; " + compared
                        + " decisions of keyed and misplaced keys compared, all equal");
            }
        }
    }
}

package dev.quotaenforcer.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rounds of random faults on three enforcer JVMs under steady traffic, each round judged by
 * {@link FaultVerifier}: SIGKILL with the state directory kept or wiped, SIGSTOP past the session
 * timeout, and clean restarts. The default suite runs one round of the sequence that once found a
 * re-keyed key decided on a wrong state; {@code mvn -B verify -Psoak -Dfault.soak=PT2H} runs rounds
 * for two hours ({@code -Dfault.soak.busy=true} adds a busy-looping process beside them, as a noisy
 * machine would).
 */
@ExtendWith(KafkaBroker.class)
class FaultSoakIT {

    /** What can happen to an instance between two stretches of traffic. */
    private enum Fault { KILL_KEEPING_STATE, KILL_WIPING_STATE, FREEZE, RESTART }

    private static final Duration SOAK = Duration.parse(System.getProperty("fault.soak", "PT0S"));
    private static final boolean BUSY = Boolean.getBoolean("fault.soak.busy");

    @Test
    void roundsOfRandomFaultsOnThreeInstancesDecideEveryRequestOnceAsTheModelDoes(TestCluster cluster, @TempDir Path work)
            throws Exception {
        long seed = Long.getLong("fault.soak.seed", System.nanoTime());
        Random random = new Random(seed);
        long deadline = System.nanoTime() + SOAK.toNanos();
        int round = 0;
        try (JarProcess busy = BUSY ? JarProcess.start(List.of("sh", "-c", "while :; do :; done"),
                work.resolve("busy.log"), java.util.Map.of(), null) : null) {
            do {
                List<Fault> faults = round == 0
                        ? List.of(Fault.KILL_KEEPING_STATE, Fault.KILL_KEEPING_STATE, Fault.FREEZE, Fault.KILL_WIPING_STATE)
                        : randomFaults(random);
                Path roundDir = Files.createDirectory(work.resolve("round-" + round));
                runRound(new TestCluster(cluster.bootstrapServers(), "soak" + round), roundDir, faults,
                        "soak seed " + seed + " round " + round + " " + faults);
                round++;
            } while (System.nanoTime() < deadline);
        }
        FaultScenario.report("soak", round + " rounds exact (seed " + seed + (BUSY ? ", beside a busy loop" : "") + ")");
    }

    private static List<Fault> randomFaults(Random random) {
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < 3 + random.nextInt(4); i++) {
            faults.add(Fault.values()[random.nextInt(Fault.values().length)]);
        }
        return faults;
    }

    private static void runRound(TestCluster cluster, Path work, List<Fault> faults, String what) throws Exception {
        Random victims = new Random(what.hashCode());
        try (FaultScenario scenario = FaultScenario.prepare(cluster, work)) {
            String[] names = {"a", "b", "c"};
            Path[] dirs = new Path[3];
            EnforcerJvm[] instances = new EnforcerJvm[3];
            for (int i = 0; i < 3; i++) {
                dirs[i] = scenario.freshStateDir(names[i]);
                instances[i] = scenario.start(names[i], dirs[i]);
            }
            scenario.startLoad();
            scenario.trafficFor(450);
            List<String> recoveries = new ArrayList<>();
            List<Long> faultTimes = new ArrayList<>();
            for (Fault fault : faults) {
                int victim = victims.nextInt(3);
                faultTimes.add(System.nanoTime());
                switch (fault) {
                    case KILL_KEEPING_STATE, KILL_WIPING_STATE -> {
                        instances[victim].kill();
                        scenario.trafficFor(150);
                        if (fault == Fault.KILL_WIPING_STATE) {
                            dirs[victim] = scenario.freshStateDir(names[victim]);
                        }
                        instances[victim] = scenario.start(names[victim], dirs[victim]);
                    }
                    case FREEZE -> {
                        instances[victim].freeze();
                        scenario.trafficFor((int) (FaultScenario.RATE_PER_SECOND
                                * (FaultScenario.SESSION_TIMEOUT.toSeconds() + 5)));
                        instances[victim].thaw();
                    }
                    case RESTART -> {
                        instances[victim].stop();
                        instances[victim] = scenario.start(names[victim], dirs[victim]);
                    }
                }
                scenario.trafficFor(450);
            }
            List<SteadyLoad.Sent> sent = scenario.finish(what);
            for (int i = 0; i < faults.size(); i++) {
                recoveries.add(faults.get(i) + " " + scenario.recoveryAfter(faultTimes.get(i), sent).toMillis() + " ms");
            }
            FaultScenario.report(what, "fault to every request of the next second decided: " + recoveries);
        }
    }
}

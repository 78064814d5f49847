package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault suite on a 3-broker KRaft cluster of separate processes (replication factor 3, two
 * replicas in sync required): partition leaders, a transaction coordinator and the active controller
 * are SIGKILLed under steady traffic with two enforcer instances; neither instance fails and
 * {@link FaultVerifier} finds every request decided exactly once, as the model decides it.
 */
class BrokerFaultsIT {

    private static final Duration MOVE_WAIT = Duration.ofSeconds(60);
    private static final Duration REPLICATION_WAIT = Duration.ofSeconds(120);

    @Test
    void killingPartitionLeadersTheTransactionCoordinatorAndTheActiveControllerFailsNoInstanceAndLosesAndDoublesNothing(
            @TempDir Path work) throws Exception {
        long started = System.nanoTime();
        try (BrokerCluster brokers = BrokerCluster.start(3, work.resolve("brokers"));
             FaultScenario scenario = FaultScenario.prepare(
                     new TestCluster(brokers.bootstrapServers(), "brokerFaults", (short) 3), work)) {
            Map<String, Object> replicated = Map.of(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
            EnforcerJvm a = scenario.start("a", scenario.freshStateDir("a"), replicated);
            EnforcerJvm b = scenario.start("b", scenario.freshStateDir("b"), replicated);
            scenario.startLoad();
            scenario.trafficFor(600);
            brokers.awaitFullyReplicated(REPLICATION_WAIT);
            // The same figure with no fault: how far behind the load the enforcer runs on this machine anyway.
            long baseline = System.nanoTime();
            scenario.trafficFor(300);

            List<String> faults = new ArrayList<>();
            List<Bounce> bounces = new ArrayList<>();
            String requests = scenario.cluster().topics().requests().name();
            for (int round = 0; round < 3; round++) {
                TopicPartition partition = new TopicPartition(requests, round);
                int leader = brokers.leaderOf(partition);
                faults.add("leader " + leader + " of " + partition);
                bounces.add(bounce(brokers, scenario, leader, "a new leader of " + partition,
                        node -> brokers.leaderOf(partition) != node && brokers.leaderOf(partition) != -1));
            }

            String transactionalId = brokers.transactionalIds(scenario.applicationId() + "-").get(0);
            int coordinator = brokers.transactionCoordinatorOf(transactionalId);
            faults.add("transaction coordinator " + coordinator + " of " + transactionalId);
            bounces.add(bounce(brokers, scenario, coordinator, "a new coordinator of " + transactionalId,
                    node -> brokers.transactionCoordinatorOf(transactionalId) != node));

            int controller = brokers.activeController();
            faults.add("active controller " + controller);
            bounces.add(bounce(brokers, scenario, controller, "a new active controller",
                    node -> brokers.activeController() != node));

            for (EnforcerJvm instance : List.of(a, b)) {
                assertTrue(instance.alive() && instance.ready(), "enforcer " + instance.name() + " alive and ready after the"
                        + " broker faults; output:\n" + instance.tail());
                assertFalse(instance.output().contains(" to ERROR"), "enforcer " + instance.name() + " reached ERROR");
            }
            List<SteadyLoad.Sent> sent = scenario.finish("3 brokers, RF 3, min ISR 2");
            List<String> recoveries = new ArrayList<>();
            for (int i = 0; i < faults.size(); i++) {
                Bounce bounce = bounces.get(i);
                recoveries.add(faults.get(i) + ": " + scenario.recoveryAfter(bounce.killedNanos(), sent).toMillis()
                        + " ms (moved after " + bounce.moved().toMillis() + " ms; restarted and all in sync in "
                        + bounce.inSyncAgain().toMillis() + " ms)");
            }
            FaultScenario.report("3 brokers, RF 3, min ISR 2", "SIGKILL to every request of the next second decided: "
                    + recoveries + "; with no fault: " + scenario.recoveryAfter(baseline, sent).toMillis() + " ms" + "; instances fenced and rejoined: " + fenced(a) + " (a), " + fenced(b) + " (b); test took "
                    + Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s");
        }
    }

    /** How many times Kafka Streams found the instance's producer fenced and rejoined the group. */
    private static long fenced(EnforcerJvm instance) {
        return instance.output().lines().filter(line -> line.contains("Detected that the thread is being fenced")).count();
    }

    /** When a node was killed, and how long its role took to move and the cluster to be fully replicated again. */
    private record Bounce(long killedNanos, Duration moved, Duration inSyncAgain) {
    }

    /**
     * SIGKILLs {@code node}, waits until {@code movedOff} holds of it (its role has moved to another node),
     * lets traffic run, restarts it and waits until every partition is fully replicated again, so the next
     * fault still finds two replicas in sync.
     */
    private static Bounce bounce(BrokerCluster brokers, FaultScenario scenario, int node, String what, IntPredicate movedOff)
            throws InterruptedException {
        long at = System.nanoTime();
        brokers.kill(node);
        TestCluster.awaitCondition(what + " after broker " + node + " was killed", () -> {
            try {
                return movedOff.test(node);
            } catch (AssertionError e) {
                return false;
            }
        }, MOVE_WAIT);
        Duration moved = Duration.ofNanos(System.nanoTime() - at);
        scenario.trafficFor(300);
        long restarting = System.nanoTime();
        brokers.restart(node);
        brokers.awaitFullyReplicated(REPLICATION_WAIT);
        Duration inSync = Duration.ofNanos(System.nanoTime() - restarting);
        scenario.trafficFor(600);
        return new Bounce(at, moved, inSync);
    }
}

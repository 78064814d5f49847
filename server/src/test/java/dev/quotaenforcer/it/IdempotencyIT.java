package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A request re-sent with its id after the instance that decided it is gone gets the original decision, counted once. */
@ExtendWith(KafkaBroker.class)
class IdempotencyIT {

    @TempDir
    Path firstStateDir;
    @TempDir
    Path secondStateDir;

    @Test
    void aRetryDecidedByAnInstanceWithAWipedStateDirGetsTheOriginalDecisionAndIsNotCountedAgain(TestCluster cluster)
            throws Exception {
        cluster.createTopics(2);
        cluster.putPlan(TestCluster.BASIC_PLAN);
        cluster.assign("k-1", "basic");
        Decision original;
        try (Enforcer first = cluster.startEnforcer("first", firstStateDir)) {
            TestCluster.awaitAssignment(first, "k-1", "basic");
            cluster.send(List.of(TestCluster.request(cluster.topics(), "k-1", "r-1", 5, null)));
            original = cluster.awaitDecisions(1).get(0);
        }

        try (Enforcer second = cluster.startEnforcer("second", secondStateDir)) {
            cluster.send(List.of(TestCluster.request(cluster.topics(), "k-1", "r-1", 5, null),
                    TestCluster.request(cluster.topics(), "k-1", "r-2", 1, null)));

            List<Decision> decisions = cluster.awaitDecisions(3);
            assertEquals(original, decisions.get(1), "the retry's answer is the original, restored from the changelog");
            assertEquals(94, decisions.get(2).remaining(), "100 - 5 for r-1, once, - 1 for r-2");
        }
    }
}

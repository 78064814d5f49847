package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.client.AsyncQuotaClient;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The asynchronous gateway on a real broker: it never waits, blocks a key locally once the enforcer
 * publishes the block, and the overshoot (requests let through after the key was over) is measured.
 */
@ExtendWith(KafkaBroker.class)
class AsyncGatewayIT {

    private static final int QUOTA = 50;
    private static final int REQUESTS_PER_SECOND = 500;

    @TempDir
    Path stateDir;

    @Test
    void gatewayBlocksLocallyOnceTheEnforcerPublishesTheBlockAndTheOvershootIsMeasured(TestCluster cluster)
            throws Exception {
        cluster.createTopics(3);
        cluster.putPlan("{\"id\": \"small\", \"quota\": {\"name\": \"hourly\", \"limit\": " + QUOTA + ", \"window\": \"PT1H\"}}");
        cluster.assign("k-async", "small");
        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir);
             AsyncQuotaClient gateway = new AsyncQuotaClient(Map.of("bootstrap.servers", cluster.bootstrapServers()),
                     cluster.topics().requests().name(), cluster.topics().blocks().name(), Clock.systemUTC())) {
            TestCluster.awaitAssignment(enforcer, "k-async", "small");
            assertTrue(gateway.awaitReady(Duration.ofSeconds(60)), "the gateway reached the cluster");
            int passed = 0;
            int refusedLocally = 0;
            long interval = TimeUnit.SECONDS.toNanos(1) / REQUESTS_PER_SECOND;
            long next = System.nanoTime();
            // Send at a steady rate until the gateway has refused locally for a while.
            for (int i = 0; refusedLocally < 200 && i < 20 * REQUESTS_PER_SECOND; i++) {
                LockSupport.parkNanos(next - System.nanoTime());
                next += interval;
                if (gateway.isBlocked("k-async")) {
                    refusedLocally++;
                } else {
                    gateway.record("k-async", 1, "r-" + i);
                    passed++;
                }
            }
            int sent = passed;
            List<Decision> decisions = cluster.awaitDecisions(read -> read.size() >= sent);
            long allowed = decisions.stream().filter(Decision::allowed).count();
            int overshoot = passed - QUOTA;
            System.out.printf("AsyncGatewayIT: at %d requests/s, the gateway let %d through before the block reached it "
                            + "(quota %d: overshoot %d requests, %.0f ms of traffic); then refused %d locally%n",
                    REQUESTS_PER_SECOND, passed, QUOTA, overshoot, overshoot * 1000.0 / REQUESTS_PER_SECOND, refusedLocally);

            assertEquals(QUOTA, allowed, "the enforcer still counts exactly");
            assertEquals(passed, decisions.size(), "every recorded request was decided");
            assertTrue(refusedLocally >= 200, "the block reached the gateway");
            assertTrue(overshoot >= 0, "requests past the quota were let through only until the block arrived");
        }
    }
}

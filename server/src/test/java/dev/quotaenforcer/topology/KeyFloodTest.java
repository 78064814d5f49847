package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A flood of random API keys: unknown ones leave nothing behind; with a default plan, a cap bounds what they take. */
class KeyFloodTest {

    @TempDir
    Path stateDir;

    @Test
    void withoutADefaultPlanAFloodOfRandomKeysLeavesNoStateNoUsageAndNoRememberedIds() {
        try (EnforcerDriver enforcer = new EnforcerDriver(stateDir)) {
            SplittableRandom random = new SplittableRandom(7);
            for (int i = 0; i < 3_000; i++) {
                enforcer.send("rnd-" + Long.toHexString(random.nextLong()), "r-" + i, at(0, i % 60));
            }

            List<Decision> decisions = enforcer.decisions();
            assertEquals(3_000, decisions.size());
            assertTrue(decisions.stream().allMatch(d -> d.reason() == Reason.UNKNOWN_API_KEY));
            assertEquals(0, count(enforcer.stateStore()));
            try (KeyValueIterator<?, ?> remembered = enforcer.driver.getKeyValueStore(QuotaTopology.REQUEST_IDS_STORE).all()) {
                assertFalse(remembered.hasNext());
            }
            assertEquals(Map.of(), enforcer.usage());
        }
    }

    @Test
    void withADefaultPlanNewUnassignedKeysAreRefusedOnceTheTaskHoldsTheCapAndAssignedKeysStillPass() {
        try (EnforcerDriver enforcer = new EnforcerDriver(stateDir, Map.of(EnforcerConfig.DEFAULT_PLAN_CONFIG, "free",
                EnforcerConfig.DEFAULT_PLAN_MAX_KEYS_CONFIG, 10))) {
            enforcer.plan("free", QuotaTopologyTest.FREE);
            enforcer.assign("customer", "free");
            for (int i = 0; i < 10; i++) {
                assertEquals(Reason.OK, enforcer.decide("rnd-" + i, "r-" + i, at(0, 0)).reason());
            }

            Decision refused = enforcer.decide("rnd-10", "r-10", at(0, 0));
            assertEquals(Reason.UNKNOWN_API_KEY, refused.reason(), "the default plan is full");
            assertEquals(Reason.OK, enforcer.decide("rnd-3", "r-again", at(0, 1)).reason(), "a key it holds still counts");
            assertEquals(Reason.OK, enforcer.decide("customer", "c-1", at(0, 1)).reason(), "assigned keys always pass");
            assertEquals(11, count(enforcer.stateStore()));

            // Past the hour and the lateness bound, the idle keys are deleted and new ones admitted again.
            enforcer.send("customer", "c-2", at(66, 0));
            enforcer.decisions();
            assertEquals(Reason.OK, enforcer.decide("rnd-11", "r-11", at(66, 1)).reason());
        }
    }

    private static long count(KeyValueStore<?, ?> store) {
        long count = 0;
        try (KeyValueIterator<?, ?> all = store.all()) {
            while (all.hasNext()) {
                all.next();
                count++;
            }
        }
        return count;
    }
}

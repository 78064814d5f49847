package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys whose every window has passed are deleted on stream time, so the store holds active keys only. */
class IdleExpiryTest {

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("free", QuotaTopologyTest.FREE);
        enforcer.assign("quiet", "free");
        enforcer.assign("busy", "free");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void deletesAKeyOnceItsHourlyQuotaWindowHasPassed() {
        enforcer.send("quiet", "q-1", at(10, 0));
        enforcer.send("busy", "b-1", at(10, 0));
        enforcer.decisions();
        assertNotNull(enforcer.stateStore().get("quiet"));

        enforcer.send("busy", "b-2", at(59, 59));
        assertNotNull(enforcer.stateStore().get("quiet"), "its hour is not over");

        enforcer.send("busy", "b-3", at(61, 0));

        assertNull(enforcer.stateStore().get("quiet"), "deleted once stream time passed 13:00");
        assertNotNull(enforcer.stateStore().get("busy"));
    }

    @Test
    void anExpiredKeyStartsAfreshWithTheSameDecisionsAsIfItHadBeenKept() {
        enforcer.burst("quiet", "q", 5, at(10, 0));
        enforcer.send("busy", "b", at(70, 0));
        enforcer.decisions();
        assertNull(enforcer.stateStore().get("quiet"));

        assertEquals(99, enforcer.decide("quiet", "again", at(71, 0)).remaining());
    }
}

package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.quotaenforcer.event.Decision;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys whose every window has passed (by event time, plus a grace) are deleted, so the store holds active keys only. */
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
    void deletesAKeyOnceItsHourlyQuotaWindowHasPassedByTheGracePeriod() {
        enforcer.send("quiet", "q-1", at(10, 0));
        enforcer.send("busy", "b-1", at(10, 0));
        enforcer.decisions();
        assertNotNull(enforcer.keyState("quiet"));

        enforcer.send("busy", "b-2", at(64, 59));
        assertNotNull(enforcer.keyState("quiet"), "13:00 plus the 5-minute grace has not passed");

        enforcer.send("busy", "b-3", at(65, 0));

        assertNull(enforcer.keyState("quiet"), "deleted once the newest event reached 13:05");
        assertNotNull(enforcer.keyState("busy"));
    }

    @Test
    void aLateRequestWithinTheGraceStillFindsItsKeysState() {
        enforcer.burst("quiet", "q", 5, at(59, 0));
        enforcer.send("busy", "b", at(62, 0));
        enforcer.decisions();

        // The busy key moved the task past 13:00; the quiet key's late request still counts in its hour.
        Decision late = enforcer.decide("quiet", "late", at(59, 30));

        assertEquals(94, late.remaining(), "counted with the 5 before it in the same minute; afresh it would say 99");
    }

    @Test
    void anExpiredKeyStartsAfreshWithTheSameDecisionsAsIfItHadBeenKept() {
        enforcer.burst("quiet", "q", 5, at(10, 0));
        enforcer.send("busy", "b", at(75, 0));
        enforcer.decisions();
        assertNull(enforcer.keyState("quiet"));

        assertEquals(99, enforcer.decide("quiet", "again", at(76, 0)).remaining());
    }
}

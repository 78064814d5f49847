package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static dev.quotaenforcer.topology.EnforcerDriver.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Plans and key assignments changed live, as data on their compacted topics. */
class PlanChangeTest {

    static final String BASIC = """
            {"id": "basic", "quota": {"name": "hourly", "limit": 10, "window": "PT1H"}}""";
    static final String BASIC_UPGRADED = """
            {"id": "basic", "quota": {"name": "hourly", "limit": 50, "window": "PT1H"}}""";
    static final String BASIC_RENAMED = """
            {"id": "basic", "quota": {"name": "hourly-v2", "limit": 50, "window": "PT1H"}}""";
    static final String PRO = """
            {"id": "pro", "rateLimits": [{"name": "burst", "algorithm": "token-bucket", "capacity": 20, "refillPerSecond": 5}],
             "quota": {"name": "hourly", "limit": 50, "window": "PT1H"}}""";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir);
        enforcer.plan("basic", BASIC);
        enforcer.plan("pro", PRO);
        enforcer.assign("k-1", "basic");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    @Test
    void upgradeMidWindowKeepsTheUsedCount() {
        assertEquals(10, enforcer.burst("k-1", "before", 12, at(10, 0)));

        enforcer.plan("basic", BASIC_UPGRADED);
        Decision next = enforcer.decide("k-1", "after", at(20, 0));

        assertTrue(next.allowed());
        assertEquals(50, next.limit());
        assertEquals(39, next.remaining(), "50 - the 10 used before - this one");
    }

    @Test
    void movingAKeyToAnotherPlanKeepsThePolicyWithTheSameNameAndAlgorithm() {
        assertEquals(10, enforcer.burst("k-1", "before", 10, at(10, 0)));

        enforcer.assign("k-1", "pro");
        Decision next = enforcer.decide("k-1", "after", at(20, 0));

        assertEquals("pro", next.plan());
        assertEquals("burst", next.policy(), "a fresh bucket of 20 has 19 left; the hour has 39");
        assertEquals(19, next.remaining());
        assertEquals("\"burst\";q=20;w=4, \"hourly\";q=50;w=3600", next.headers().get("RateLimit-Policy"));
        for (int i = 0; i < 60; i++) {
            enforcer.send("k-1", "spaced-" + i, at(30, i));
        }
        assertEquals(39, enforcer.decisions().stream().filter(Decision::allowed).count(),
                "the bucket never binds at one per second; the hour had 39 left");
    }

    @Test
    void renamedPolicyStartsCountingAfresh() {
        enforcer.burst("k-1", "before", 10, at(10, 0));

        enforcer.plan("basic", BASIC_RENAMED);

        assertEquals(49, enforcer.decide("k-1", "after", at(20, 0)).remaining());
    }

    @Test
    void invalidPlanGoesToDeadLetterAndThePreviousVersionStaysInForce() {
        enforcer.plan("basic", """
                {"id": "basic", "quota": {"name": "hourly", "limit": 10, "window": "PT0S"}}""");

        List<TestRecord<byte[], byte[]>> dead = enforcer.deadLetters();
        assertEquals(1, dead.size());
        Headers headers = dead.get(0).headers();
        assertEquals("INVALID_PLAN", text(headers.lastHeader("dlq.error").value()));
        assertEquals("plan \"basic\": quota.window: \"PT0S\" must be a whole number of seconds from PT1S to PT744H",
                text(headers.lastHeader("dlq.reason").value()));
        assertEquals("quota.plans", text(headers.lastHeader("dlq.source.topic").value()));
        assertEquals("basic", text(dead.get(0).key()));

        assertEquals(10, enforcer.burst("k-1", "still-basic", 11, at(10, 0)));
    }

    @Test
    void planKeyedDifferentlyFromItsIdIsRejected() {
        enforcer.plan("pro", BASIC_UPGRADED);

        assertEquals(1, enforcer.deadLetters().size());
        enforcer.assign("k-2", "pro");
        assertEquals("burst", enforcer.decide("k-2", "r", at(1, 0)).policy());
    }

    @Test
    void deletedPlanLeavesItsKeysWithUnknownPlan() {
        enforcer.deletePlan("basic");

        Decision decision = enforcer.decide("k-1", "r", at(1, 0));

        assertFalse(decision.allowed());
        assertEquals(Reason.UNKNOWN_PLAN, decision.reason());
        assertEquals("basic", decision.plan());
    }

    @Test
    void keyAssignedToAPlanNotYetPublishedIsDeniedUntilItArrives() {
        enforcer.assign("k-2", "enterprise");
        assertEquals(Reason.UNKNOWN_PLAN, enforcer.decide("k-2", "r-1", at(1, 0)).reason());

        enforcer.plan("enterprise", """
                {"id": "enterprise", "quota": {"limit": 100000}}""");

        Decision decision = enforcer.decide("k-2", "r-2", at(1, 1));
        assertTrue(decision.allowed());
        assertEquals("quota", decision.policy(), "the quota's default name");
        assertEquals("\"quota\";q=100000;w=3600", decision.headers().get("RateLimit-Policy"), "fixed-window PT1H by default");
    }

    @Test
    void revokedKeyIsDeniedFromTheNextRequest() {
        assertTrue(enforcer.decide("k-1", "r-1", at(1, 0)).allowed());

        enforcer.revoke("k-1");

        assertEquals(Reason.UNKNOWN_API_KEY, enforcer.decide("k-1", "r-2", at(1, 1)).reason());
    }

    @Test
    void invalidAssignmentGoesToDeadLetterAndTheKeyKeepsItsPlan() {
        enforcer.rawAssignment("k-1", "{\"plan\": 42}");

        List<TestRecord<byte[], byte[]>> dead = enforcer.deadLetters();
        assertEquals(1, dead.size());
        assertEquals("INVALID_ASSIGNMENT", text(dead.get(0).headers().lastHeader("dlq.error").value()));
        assertEquals("basic", enforcer.decide("k-1", "r", at(1, 0)).plan());
    }

    @Test
    void defaultPlanAppliesToUnassignedKeys(@TempDir Path otherStateDir) {
        try (EnforcerDriver withDefault = new EnforcerDriver(otherStateDir,
                Map.of(EnforcerConfig.DEFAULT_PLAN_CONFIG, "basic"))) {
            withDefault.plan("basic", BASIC);

            Decision decision = withDefault.decide("anyone", "r", at(1, 0));

            assertTrue(decision.allowed());
            assertEquals("basic", decision.plan());
        }
    }
}

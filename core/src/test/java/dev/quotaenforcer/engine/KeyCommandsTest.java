package dev.quotaenforcer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import dev.quotaenforcer.plan.PolicyKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The admin commands' semantics on a key's state: reset, grant, block, unblock, and what the blocks topic must hold after each. */
class KeyCommandsTest {

    private static final String KEY = "k-1";
    private static final Instant NOON = Instant.parse("2026-11-30T12:00:00Z");
    private static final Plan PLAN = new Plan("metered", List.of(
            new PlanPolicy(LimitPolicy.window("per-minute", Algorithm.SLIDING_WINDOW_COUNTER, 3, Duration.ofMinutes(1)),
                    PolicyKind.RATE),
            new PlanPolicy(LimitPolicy.window("hourly", Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1)), PolicyKind.QUOTA)));

    private KeyState state;
    private PlanEvaluation last;

    private static Instant at(int minute, int second) {
        return NOON.plusSeconds(minute * 60L + second);
    }

    private Decision request(Instant time) {
        PlanEvaluation evaluation = QuotaEngine.evaluate(PLAN, state, time.toEpochMilli(), 1);
        state = evaluation.state();
        last = evaluation;
        return DecisionFactory.of(new RequestEvent("r@" + time, KEY, 1, time.toEpochMilli()), evaluation);
    }

    /** The hourly quota's verdict on the last request. */
    private Verdict hourly() {
        return last.verdicts().get(1).verdict();
    }

    /** Applies a command that must apply, and keeps the key's new state. */
    private KeyCommands.Applied.Done command(KeyCommand command, Instant time) {
        KeyCommands.Applied.Done done = done(KeyCommands.apply(PLAN, state, command, time.toEpochMilli()));
        state = done.state();
        return done;
    }

    private static KeyCommands.Applied.Done done(KeyCommands.Applied applied) {
        return assertInstanceOf(KeyCommands.Applied.Done.class, applied, () -> "not applied: " + applied);
    }

    private static String problem(KeyCommands.Applied applied) {
        return assertInstanceOf(KeyCommands.Applied.NotApplicable.class, applied, () -> "applied: " + applied).problem();
    }

    /** Five requests a minute apart: the hourly quota of 5 is used up, the per-minute limit never binds. */
    private void useTheHourlyQuota() {
        for (int minute = 0; minute < 5; minute++) {
            assertTrue(request(at(minute, 0)).allowed());
        }
        assertEquals(Reason.QUOTA_EXCEEDED, request(at(5, 0)).reason());
    }

    @Test
    void grantLetsKeyPastHourlyQuotaUntilHourEnds() {
        useTheHourlyQuota();

        KeyCommands.Applied.Done applied = command(KeyCommand.grant(KEY, "hourly", 2), at(10, 0));

        assertNull(applied.block(), "the quota block is lifted");
        Decision first = request(at(11, 0));
        assertTrue(first.allowed());
        assertEquals(7, first.limit(), "the granted limit shows while the grant lasts");
        assertEquals("hourly", first.policy());
        assertTrue(request(at(12, 0)).allowed());
        Decision third = request(at(13, 0));
        assertEquals(Reason.QUOTA_EXCEEDED, third.reason());
        assertEquals(47 * 60, third.retryAfterSeconds(), "until the hour ends");
        assertTrue(request(at(60, 0)).allowed());
        assertEquals(5, hourly().limit(), "the grant ended with the hour");
        assertEquals(List.of(), state.grants(), "an ended grant leaves the key's state at its next decision");
    }

    @Test
    void secondGrantInTheSameWindowAddsUp() {
        useTheHourlyQuota();
        command(KeyCommand.grant(KEY, "hourly", 1), at(10, 0));
        command(KeyCommand.grant(KEY, "hourly", 1), at(10, 1));

        assertTrue(request(at(11, 0)).allowed());
        assertTrue(request(at(12, 0)).allowed());
        assertFalse(request(at(13, 0)).allowed());
    }

    @Test
    void resetOfAPolicyEndsItsDenialRunAndLiftsItsBlock() {
        for (int i = 0; i < 3; i++) {
            assertTrue(request(at(0, i)).allowed());
        }
        assertEquals(Reason.RATE_LIMITED, request(at(0, 3)).reason());

        KeyCommands.Applied.Done applied = command(KeyCommand.reset(KEY, "per-minute"), at(0, 4));

        assertNull(applied.block(), "nothing denies any more: the block is lifted");
        assertTrue(request(at(0, 5)).allowed());
        assertEquals(1, hourly().remaining(), "the hourly quota kept its count: 4 of 5 used");
    }

    @Test
    void resetOfOnePolicyLeavesTheBlockOfAnotherThatStillDenies() {
        useTheHourlyQuota();

        KeyCommands.Applied.Done applied = command(KeyCommand.reset(KEY, "per-minute"), at(10, 0));

        Block block = applied.block();
        assertEquals(Reason.QUOTA_EXCEEDED, block.reason());
        assertEquals("hourly", block.policy());
        assertEquals(at(60, 0), block.until());
        assertFalse(request(at(11, 0)).allowed());
    }

    @Test
    void resetWithoutPolicyClearsEveryPolicyAndLeavesNothingToStore() {
        useTheHourlyQuota();

        KeyCommands.Applied.Done applied = command(KeyCommand.reset(KEY, null), at(10, 0));

        assertNull(applied.state(), "no counts, grants or block are left");
        assertNull(applied.block());
        assertTrue(request(at(11, 0)).allowed());
        assertEquals(4, hourly().remaining());
    }

    @Test
    void blockDeniesEveryRequestUntilItEndsWithAnHonestRetryAfterAndConsumesNothing() {
        assertTrue(request(at(0, 0)).allowed());

        KeyCommands.Applied.Done applied = command(KeyCommand.block(KEY, at(30, 0)), at(10, 0));

        assertEquals(new Block(KEY, "metered", Reason.BLOCKED, null, at(30, 0), 20 * 60), applied.block());
        for (int minute = 11; minute < 30; minute++) {
            Decision blocked = request(at(minute, 0));
            assertEquals(Reason.BLOCKED, blocked.reason());
            assertFalse(blocked.allowed());
            assertEquals((30 - minute) * 60, blocked.retryAfterSeconds());
            assertEquals(Long.toString((30 - minute) * 60), blocked.headers().get("Retry-After"));
        }
        assertTrue(request(at(30, 0)).allowed());
        assertEquals(3, hourly().remaining(), "19 blocked requests consumed nothing: 2 of the hourly 5 used");
    }

    @Test
    void blockWithoutEndSaysNeverAndKeepsTheKeyFromExpiring() {
        KeyCommands.Applied.Done applied = command(KeyCommand.block(KEY, null), at(0, 0));

        assertEquals(new Block(KEY, "metered", Reason.BLOCKED, null, null, Verdict.NEVER), applied.block());
        assertEquals(Long.MAX_VALUE, applied.state().idleFrom());
        Decision blocked = request(NOON.plus(Duration.ofDays(400)));
        assertEquals(Reason.BLOCKED, blocked.reason());
        assertEquals(Verdict.NEVER, blocked.retryAfterSeconds());
        assertNull(blocked.headers().get("Retry-After"));
    }

    @Test
    void laterBlockReplacesTheEarlierOne() {
        command(KeyCommand.block(KEY, null), at(0, 0));
        command(KeyCommand.block(KEY, at(5, 0)), at(1, 0));

        assertEquals(240, request(at(1, 0)).retryAfterSeconds());
        assertTrue(request(at(5, 0)).allowed());
    }

    @Test
    void unblockLiftsTheBlockButALimitThatStillDeniesKeepsItsOwn() {
        useTheHourlyQuota();
        command(KeyCommand.block(KEY, null), at(10, 0));
        assertEquals(Reason.BLOCKED, request(at(11, 0)).reason());

        KeyCommands.Applied.Done applied = command(KeyCommand.unblock(KEY), at(12, 0));

        assertEquals(Reason.QUOTA_EXCEEDED, applied.block().reason(), "the quota is still used up");
        assertEquals(at(60, 0), applied.block().until());
        assertEquals(Reason.QUOTA_EXCEEDED, request(at(13, 0)).reason());
    }

    @Test
    void unblockOfAFreeKeyLiftsEverything() {
        command(KeyCommand.block(KEY, at(30, 0)), at(0, 0));

        KeyCommands.Applied.Done applied = command(KeyCommand.unblock(KEY), at(1, 0));

        assertNull(applied.block());
        assertNull(applied.state());
        assertTrue(request(at(1, 1)).allowed());
    }

    @Test
    void aCommandIsAppliedAtTheKeysTimeWhenItIsOlder() {
        assertTrue(request(at(20, 0)).allowed());

        command(KeyCommand.block(KEY, at(25, 0)), at(10, 0));

        assertEquals(at(20, 0).toEpochMilli(), state.lastSeen());
        assertEquals(300, request(at(15, 0)).retryAfterSeconds(), "decided at the key's time, 12:20");
    }

    @Test
    void grantOrResetOfAPolicyNotInThePlanIsAProblemNamingItAndChangesNothing() {
        assertTrue(request(at(0, 0)).allowed());
        KeyState before = state;

        KeyCommands.Applied grant = KeyCommands.apply(PLAN, before, KeyCommand.grant(KEY, "daily", 5), at(1, 0).toEpochMilli());
        KeyCommands.Applied reset = KeyCommands.apply(PLAN, before, KeyCommand.reset(KEY, "daily"), at(1, 0).toEpochMilli());

        assertEquals("policy: daily is not a policy of plan metered of key k-1 (per-minute, hourly)", problem(grant));
        assertEquals(problem(grant), problem(reset));
    }

    @Test
    void grantToAKeyWithoutPlanIsAProblemButABlockApplies() {
        KeyCommands.Applied grant = KeyCommands.apply(null, null, KeyCommand.grant(KEY, "hourly", 5), at(0, 0).toEpochMilli());
        KeyCommands.Applied block = KeyCommands.apply(null, null, KeyCommand.block(KEY, null), at(0, 0).toEpochMilli());

        assertEquals("policy: key k-1 has no plan in force, so no policy hourly", problem(grant));
        assertEquals(new Block(KEY, null, Reason.BLOCKED, null, null, Verdict.NEVER), done(block).block());
    }

    @Test
    void blockUntilATimeNotAfterTheKeysTimeIsAProblem() {
        assertTrue(request(at(20, 0)).allowed());

        KeyCommands.Applied applied = KeyCommands.apply(PLAN, state, KeyCommand.block(KEY, at(20, 0)), at(10, 0).toEpochMilli());

        assertEquals("until: 2026-11-30T12:20:00Z is not after the key's time 2026-11-30T12:20:00Z", problem(applied));
    }
}

package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Grants: extra allowance for a policy until its current window ends, with Retry-After exact across the end. */
class GrantTest {

    private static final long NOON = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();
    private static final long MINUTE = 60_000;

    @Test
    void fixedWindowGrantAddsItsAmountUntilTheWindowEnds() {
        LimitPolicy hourly = LimitPolicy.window("hourly", Algorithm.FIXED_WINDOW, 3, Duration.ofHours(1));
        long until = hourly.grantEnd(NOON + 10 * MINUTE);
        assertEquals(NOON + 60 * MINUTE, until, "the calendar hour the grant was made in");

        PolicyState state = admitAll(hourly, 3, NOON + 11 * MINUTE, 0, until);
        assertEquals(2, admitted(hourly, state, 4, NOON + 12 * MINUTE, 2, until), "two more than the limit");

        PolicyOutcome nextHour = hourly.decide(exhaust(hourly), NOON + 60 * MINUTE, 1, 2, until);
        assertEquals(3, nextHour.verdict().limit(), "the next hour has the plain limit");
    }

    @Test
    void grantedLimitShowsInTheVerdictWhileTheGrantLasts() {
        LimitPolicy hourly = LimitPolicy.window("hourly", Algorithm.FIXED_WINDOW, 3, Duration.ofHours(1));

        Verdict verdict = hourly.decide(null, NOON, 1, 5, NOON + 60 * MINUTE).verdict();

        assertEquals(8, verdict.limit());
        assertEquals(7, verdict.remaining());
    }

    @Test
    void slidingWindowGrantEndsWithTheAlignedWindowAndRetryAfterWaitsForTheRequestsToSlideOut() {
        LimitPolicy perMinute = LimitPolicy.window("per-minute", Algorithm.SLIDING_WINDOW_LOG, 2, Duration.ofMinutes(1));
        long grantedAt = NOON + 30_000;
        long until = perMinute.grantEnd(grantedAt);
        assertEquals(NOON + MINUTE, until);

        PolicyState state = admitAll(perMinute, 3, grantedAt, 1, until);
        PolicyOutcome denied = perMinute.decide(state, grantedAt, 1, 1, until);

        assertFalse(denied.verdict().allowed());
        // Under the raised limit 3 the log frees a place at 12:01:30, after the grant: then the plain limit 2
        // needs two of the three entries gone, which is also 12:01:30 (all three were admitted at 12:00:30).
        assertEquals(60, denied.verdict().retryAfterSeconds());
    }

    @Test
    void retryAfterUnderAGrantNeverPromisesTheRaisedLimitBeyondTheGrant() {
        LimitPolicy hourly = LimitPolicy.window("hourly", Algorithm.SLIDING_WINDOW_COUNTER, 10, Duration.ofHours(1));
        long until = NOON + 60 * MINUTE;
        PolicyState state = admitAll(hourly, 15, NOON + 59 * MINUTE, 5, until);

        PolicyOutcome denied = hourly.decide(state, NOON + 59 * MINUTE, 1, 5, until);

        assertFalse(denied.verdict().allowed());
        long retryAt = NOON + 59 * MINUTE + denied.verdict().retryAfterSeconds() * 1000;
        assertTrue(retryAt > until, "the raised limit is spent, so only the plain limit can admit it");
        assertTrue(hourly.decide(denied.state(), retryAt, 1, 5, until).verdict().allowed());
        assertFalse(hourly.decide(denied.state(), retryAt - 1000, 1, 5, until).verdict().allowed());
    }

    @Test
    void tokenBucketGrantPutsTheTokensInAtOnceAndWhatIsLeftLapsesWhenItEnds() {
        LimitPolicy burst = LimitPolicy.bucket("burst", Algorithm.TOKEN_BUCKET, 5, RefillRate.of(1, Duration.ofSeconds(1)));
        PolicyState empty = exhaust(burst);
        long until = burst.grantEnd(NOON);
        assertEquals(NOON + 5_000, until, "a bucket's window: the time to refill its capacity");

        PolicyState granted = burst.grant(empty, NOON, 0, 3);

        assertEquals(3, admitted(burst, granted, 5, NOON, 3, until), "three granted tokens, no refill yet");
        PolicyState unused = burst.grant(empty, NOON, 0, 30);
        PolicyOutcome afterGrant = burst.decide(unused, until + 1, 1, 30, until);
        assertEquals(5, afterGrant.verdict().limit());
        assertEquals(4, afterGrant.verdict().remaining(), "back to a full bucket of 5, not 30 left over");
    }

    @Test
    void leakyBucketGrantQueuesMoreRequests() {
        LimitPolicy queue = LimitPolicy.bucket("queue", Algorithm.LEAKY_BUCKET, 2, RefillRate.of(1, Duration.ofSeconds(1)));
        long until = queue.grantEnd(NOON);

        assertEquals(2, admitted(queue, null, 5, NOON, 0, until));
        assertEquals(4, admitted(queue, null, 5, NOON, 2, until));
    }

    /** Retry-After stays the first whole second that admits the same request, with a grant in the middle of the traffic. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Algorithm.class)
    void retryAfterIsExactAcrossTheEndOfAGrant(Algorithm algorithm) {
        for (long seed = 0; seed < 200; seed++) {
            Random random = new Random(seed);
            LimitPolicy policy = Traffic.policy(random, algorithm);
            List<Traffic.Request> requests = Traffic.requests(random, policy, 100);
            long grantedAt = requests.get(30).time();
            long amount = 1 + random.nextInt((int) Math.min(policy.limit(), 50));
            long until = policy.grantEnd(grantedAt);
            PolicyState state = null;
            for (int i = 0; i < requests.size(); i++) {
                Traffic.Request request = requests.get(i);
                if (i == 30) {
                    state = policy.grant(state, grantedAt, 0, amount);
                }
                long extra = i >= 30 ? amount : 0;
                PolicyOutcome outcome = policy.decide(state, request.time(), request.cost(), extra, until);
                long seconds = outcome.verdict().retryAfterSeconds();
                if (!outcome.verdict().allowed() && seconds != Verdict.NEVER) {
                    long at = Math.max(request.time(), outcome.state().updatedAt());
                    String what = "seed " + seed + ", " + policy + ", grant " + amount + " until " + until + ", request #"
                            + i + " at " + request.time() + " cost " + request.cost() + " -> " + outcome;
                    assertTrue(policy.decide(outcome.state(), at + seconds * 1000, request.cost(), extra, until)
                            .verdict().allowed(), "still denied after Retry-After: " + what);
                    assertFalse(policy.decide(outcome.state(), at + (seconds - 1) * 1000, request.cost(), extra, until)
                            .verdict().allowed(), "allowed a second before Retry-After: " + what);
                }
                state = outcome.state();
            }
        }
    }

    private static PolicyState exhaust(LimitPolicy policy) {
        PolicyState state = null;
        for (int i = 0; i < policy.limit(); i++) {
            state = policy.decide(state, NOON, 1).state();
        }
        return state;
    }

    private static PolicyState admitAll(LimitPolicy policy, int count, long time, long extra, long until) {
        PolicyState state = null;
        for (int i = 0; i < count; i++) {
            PolicyOutcome outcome = policy.decide(state, time, 1, extra, until);
            assertTrue(outcome.verdict().allowed(), "request " + i + " of " + count + ": " + outcome);
            state = outcome.state();
        }
        return state;
    }

    private static int admitted(LimitPolicy policy, PolicyState state, int count, long time, long extra, long until) {
        int admitted = 0;
        for (int i = 0; i < count; i++) {
            PolicyOutcome outcome = policy.decide(state, time, 1, extra, until);
            admitted += outcome.verdict().allowed() ? 1 : 0;
            state = outcome.state();
        }
        return admitted;
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/** The Lua limiter against a real redis-server, where one is installed (CI installs Debian's). */
class SlidingWindowScriptTest {

    @TempDir
    static Path dir;

    private static RedisServer server;

    @BeforeAll
    static void startRedis() throws Exception {
        Optional<Path> executable = RedisServer.find(System.getenv("PATH"));
        if (executable.isPresent()) {
            server = RedisServer.start(executable.get(), dir.resolve("redis-server.log"));
        }
    }

    @AfterAll
    static void stopRedis() {
        if (server != null) {
            server.close();
        }
    }

    private static Jedis connect() {
        Assumptions.assumeTrue(server != null, "redis-server not found on PATH (install Debian's redis-server)");
        return server.connect();
    }

    @Test
    void namesTheCurrentAndPreviousWindowsCountersUnderTheKeysHashTag() {
        SlidingWindowScript script = new SlidingWindowScript(10, 60_000);

        assertEquals(List.of("swc:{k-1}:120000", "swc:{k-1}:60000"), script.keys("k-1", 179_999));
        assertEquals(List.of("swc:{k-1}:180000", "swc:{k-1}:120000"), script.keys("k-1", 180_000));
    }

    @Test
    void allowsTenOfFifteenAgainstALimitOfTenAndCountsOnlyWhatItAllows() {
        try (Jedis jedis = connect()) {
            String sha = SlidingWindowScript.register(jedis);
            SlidingWindowScript script = new SlidingWindowScript(10, 60_000);
            int allowed = 0;
            for (int i = 0; i < 15; i++) {
                allowed += script.allow(jedis, sha, "fifteen", 60_000 + i, 1) ? 1 : 0;
            }
            assertEquals(10, allowed);
            assertEquals("10", jedis.get("swc:{fifteen}:60000"));
        }
    }

    @Test
    void weighsThePreviousWindowByHowMuchOfItTheSlidingWindowStillCovers() {
        try (Jedis jedis = connect()) {
            String sha = SlidingWindowScript.register(jedis);
            SlidingWindowScript script = new SlidingWindowScript(10, 60_000);
            for (int i = 0; i < 10; i++) {
                assertTrue(script.allow(jedis, sha, "weighted", 0, 1));
            }
            // Halfway into the next window, the previous 10 weigh 5: room for 5 more, and a cost of 6 does not fit.
            assertFalse(script.allow(jedis, sha, "weighted", 90_000, 6));
            assertTrue(script.allow(jedis, sha, "weighted", 90_000, 5));
            assertFalse(script.allow(jedis, sha, "weighted", 90_000, 1));
        }
    }

    @Test
    void decidesTheCheckSampleExactlyAsTheEnforcersCounterDoes() {
        try (Jedis jedis = connect()) {
            ScriptCheck.Checked checked = ScriptCheck.run(jedis, SlidingWindowScript.register(jedis), "agree", 7);

            assertEquals(10, checked.burstAllowed());
            assertEquals(ScriptCheck.SEQUENCE, checked.sequenceDecided());
            assertTrue(checked.sequenceAllowed() > 0 && checked.sequenceAllowed() < ScriptCheck.SEQUENCE, checked.toString());
        }
    }

    @Test
    void theCheckCatchesAScriptThatAllowsOneTooMany() {
        try (Jedis jedis = connect()) {
            String broken = jedis.scriptLoad(SlidingWindowScript.SOURCE.replace("> limit * window", "> (limit + 1) * window"));

            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ScriptCheck.run(jedis, broken, "broken", 7));
            assertEquals("the Redis script allowed 11 of 15 requests against a limit of 10", e.getMessage());
        }
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisScenarioTest {

    @TempDir
    Path dir;

    @Test
    void withoutRedisServerItSaysItSkippedAndMeasuresNothing() throws Exception {
        StringWriter progress = new StringWriter();
        ScenarioResult result = new RedisScenario(new LatencyScenario(), dir.toString())
                .run(new BenchContext(true, 1, dir, new Progress(new PrintWriter(progress))));

        assertEquals("skipped: redis-server not found on PATH (install Debian's redis-server)", result.title());
        assertTrue(result.figures().isEmpty() && result.targets().isEmpty() && result.tables().isEmpty());
        assertTrue(progress.toString().contains("redis: skipped: redis-server not found on PATH"), progress.toString());
    }

    @Test
    void findsAnExecutableRedisServerInAnyDirectoryOfThePath() throws Exception {
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path server = Files.createFile(bin.resolve("redis-server"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path notExecutable = Files.createDirectory(dir.resolve("other"));
        Files.createFile(notExecutable.resolve("redis-server"));

        assertEquals(Optional.of(server), RedisServer.find(notExecutable + ":" + dir.resolve("missing") + "::" + bin));
        assertEquals(Optional.empty(), RedisServer.find(notExecutable.toString()));
        assertEquals(Optional.empty(), RedisServer.find(null));
    }
}

package dev.quotaenforcer.bench;

import dev.quotaenforcer.broker.EmbeddedKafka;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** A {@code redis-server} process on a free loopback port, persistence off, stopped on close. */
final class RedisServer implements AutoCloseable {

    static final String EXECUTABLE = "redis-server";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final int port;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** {@code redis-server} on {@code path} (the PATH variable's value), if any directory of it has one. */
    static Optional<Path> find(String path) {
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, EXECUTABLE);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    /** Starts {@code executable} and waits until it answers PING; its output goes to {@code log}. */
    static RedisServer start(Path executable, Path log) throws IOException, InterruptedException {
        int port = EmbeddedKafka.freePort();
        // No RDB snapshots, no append-only file: the benchmark measures the limiter, not the disk.
        Process process = new ProcessBuilder(List.of(executable.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        RedisServer server = new RedisServer(process, port);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try (Jedis jedis = server.connect()) {
                jedis.ping();
                return server;
            } catch (JedisConnectionException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    server.close();
                    throw new IOException("redis-server did not answer on port " + port + " within " + START_TIMEOUT
                            + "; its log: " + log, e);
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
    }

    int port() {
        return port;
    }

    Jedis connect() {
        return new Jedis("127.0.0.1", port);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

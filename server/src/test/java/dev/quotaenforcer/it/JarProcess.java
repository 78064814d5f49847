package dev.quotaenforcer.it;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A program run as its own process (usually {@code java -jar target/quota-enforcer.jar ...} in the server module), with
 * stdout and stderr together in a file that can be polled. Closing it kills the process if it is
 * still alive, so a failed test never leaves one behind.
 */
final class JarProcess implements AutoCloseable {

    /** The shaded jar `mvn package` builds; failsafe runs the ITs after package. */
    static final Path JAR = Path.of("target", "quota-enforcer.jar");
    /** This JVM's own java, which every process the tests start runs on. */
    static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Process process;
    private final Path output;

    private JarProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** {@code java <args>} with this JVM's java, the environment without any QUOTA_ENFORCER_* variable plus {@code env}. */
    static JarProcess java(Path output, Map<String, String> env, String... args) {
        if (!Files.isRegularFile(JAR)) {
            throw new AssertionError(JAR.toAbsolutePath() + " is missing: run `mvn package` (or `mvn verify`) first");
        }
        List<String> command = new ArrayList<>();
        command.add(JAVA);
        command.addAll(List.of(args));
        return start(command, output, env, null);
    }

    /** Any program, with {@code stdin} (or nothing) as its standard input. */
    static JarProcess start(List<String> command, Path output, Map<String, String> env, String stdin) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        // Hermetic: a QUOTA_ENFORCER_BOOTSTRAP_SERVERS in the developer's shell would stop `run` starting its broker.
        builder.environment().keySet().removeIf(name -> name.startsWith("QUOTA_ENFORCER_"));
        builder.environment().putAll(env);
        try {
            Process process = builder.start();
            try (OutputStream in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            return new JarProcess(process, output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Runs a program to completion and returns its exit status and output; fails after {@code timeout}. */
    static Result run(List<String> command, Path output, Map<String, String> env, String stdin, Duration timeout) {
        try (JarProcess process = start(command, output, env, stdin)) {
            OptionalInt status = process.awaitExit(timeout);
            if (status.isEmpty()) {
                throw new AssertionError(command + " did not finish within " + timeout + "; output:\n" + process.output());
            }
            return new Result(status.getAsInt(), process.output());
        }
    }

    /** A finished program's exit status and output. */
    record Result(int status, String output) {
    }

    long pid() {
        return process.pid();
    }

    /** Everything the process printed so far. */
    String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Polls the output until it contains {@code text}; false when {@code timeout} passes or the
     * process exits without printing it.
     */
    boolean awaitOutput(String text, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean alive = process.isAlive();
            if (output().contains(text)) {
                return true;
            }
            if (!alive || System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Waits for the process to exit; its status, or empty if it is still running after {@code timeout}. */
    OptionalInt awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    ? OptionalInt.of(process.exitValue()) : OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** SIGTERM on Linux: the JVM runs its shutdown hooks. */
    void terminate() {
        process.destroy();
    }

    /** Kills the process (SIGKILL) if it is still alive and waits for it to go. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            awaitExit(Duration.ofSeconds(30));
        }
    }

    /** The program's path if it is an executable on the PATH, else null. */
    static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return Path.of(dir, program);
            }
        }
        return null;
    }
}

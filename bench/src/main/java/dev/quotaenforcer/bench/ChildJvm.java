package dev.quotaenforcer.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program of the bench's own jar in a JVM of its own (this JVM's java and class path: the shaded
 * jar when the bench runs from it), so that its memory and its pauses are its own. Its output goes to
 * a log file that is polled; closing it, or stopping the bench, kills the process if it is still alive.
 */
final class ChildJvm implements AutoCloseable {

    /** The heap in transparent huge pages, as the image's entrypoint runs the enforcer. */
    static final String HUGE_PAGES = "-XX:+UseTransparentHugePages";

    private final String what;
    private final Process process;
    private final Path log;
    private final long startNanos;
    /** Kills the process if the bench itself is stopped (Ctrl-C), which would otherwise leave it running. */
    private final Thread killOnExit;

    private ChildJvm(String what, Process process, Path log, long startNanos) {
        this.what = what;
        this.process = process;
        this.log = log;
        this.startNanos = startNanos;
        this.killOnExit = new Thread(process::destroyForcibly, "kill-" + what.replace(' ', '-') + "-" + process.pid());
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * The enforcer's {@code run} command.
     *
     * @param jvmOptions e.g. {@code -Xmx512m}
     * @param runArgs    the arguments after {@code run}
     */
    static ChildJvm enforcer(List<String> jvmOptions, List<String> runArgs, Path log) {
        List<String> args = new ArrayList<>(List.of("run"));
        args.addAll(runArgs);
        List<String> jvm = new ArrayList<>(List.of(HUGE_PAGES));
        jvm.addAll(jvmOptions);
        return start("the enforcer", jvm, "dev.quotaenforcer.Main", args, log);
    }

    /**
     * @param what      what the process is, for messages (e.g. "the broker")
     * @param mainClass a class on this JVM's class path
     */
    static ChildJvm start(String what, List<String> jvmOptions, String mainClass, List<String> args, Path log) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        // Only the settings given here apply: none of the user's QUOTA_ENFORCER_* variables.
        builder.environment().keySet().removeIf(name -> name.startsWith("QUOTA_ENFORCER_"));
        long start = System.nanoTime();
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            return new ChildJvm(what, builder.start(), log, start);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /**
     * For a child's main: returns when its standard input closes. The bench that started it holds the other end,
     * so a bench killed outright does not leave the child behind.
     */
    static void awaitParentGone() throws IOException {
        while (System.in.read() != -1) {
            // Nothing is sent on standard input; it only tells when the bench has gone.
        }
    }

    /** {@link #start}, then waits for {@code ready} in its log; closes it if that fails. */
    static ChildJvm startAndAwait(String what, List<String> jvmOptions, String mainClass, List<String> args, Path log,
                                  String ready, Duration timeout) throws InterruptedException {
        ChildJvm process = start(what, jvmOptions, mainClass, args, log);
        try {
            process.awaitLine(ready, timeout);
        } catch (RuntimeException | InterruptedException e) {
            process.close();
            throw e;
        }
        return process;
    }

    long pid() {
        return process.pid();
    }

    /** The process's CPU so far, every thread, in ns; NaN where the platform cannot tell. */
    double cpuNanos() {
        return process.info().totalCpuDuration().map(cpu -> (double) cpu.toNanos()).orElse(Double.NaN);
    }

    /** Seconds since the process was started. */
    double secondsSinceStart() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    List<String> lines() {
        try {
            return Files.readAllLines(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the log holds {@code text}; fails when the process exits first or {@code timeout} passes. */
    void awaitLine(String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean alive = process.isAlive();
            if (lines().stream().anyMatch(line -> line.contains(text))) {
                return;
            }
            if (!alive) {
                throw new IllegalStateException(what + " exited with status " + process.exitValue()
                        + " before logging \"" + text + "\"; see " + log);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " did not log \"" + text + "\" within " + timeout + "; see " + log);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** Fails when the process has exited, which it never should on its own. */
    void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(what + " exited with status " + process.exitValue() + "; see " + log);
        }
    }

    /** The status text of {@code /proc/<pid>/status}. */
    String procStatus() throws IOException {
        return Files.readString(Path.of("/proc", Long.toString(pid()), "status"), StandardCharsets.UTF_8);
    }

    /** Runs {@code jcmd <pid> <command>} and returns its output. */
    String jcmd(String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process run = new ProcessBuilder(jcmd.toString(), Long.toString(pid()), command).redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!run.waitFor(60, TimeUnit.SECONDS) || run.exitValue() != 0) {
            throw new IllegalStateException("jcmd " + command + " failed: " + output);
        }
        return output;
    }

    /** SIGTERM, as an operator stops it, then waits for it to exit; its exit status. */
    int stop(Duration timeout) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(what + " did not stop within " + timeout + "; see " + log);
        }
        return process.exitValue();
    }

    /** {@link #stop}, then {@link #close} whatever stopping did: for a child that must not outlive its owner. */
    void stopAndClose(Duration timeout) throws InterruptedException {
        try {
            stop(timeout);
        } finally {
            close();
        }
    }

    @Override
    public void close() throws InterruptedException {
        Runtime.getRuntime().removeShutdownHook(killOnExit);
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}

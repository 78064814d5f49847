package dev.quotaenforcer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Times when a core of the machine itself stopped: a process of its own with one thread pinned to each core,
 * each sleeping 1 ms at a time and noting when it woke much later. On a virtual machine whose host takes its
 * cores away (this project's bench machines lose one for 100 ms at a time, seen alike by a real-time-priority
 * C program), every thread on that core stops with it, whichever application it belongs to; a latency turn
 * that overlaps such a freeze measures the host, not the software.
 */
final class MachineFreezes implements AutoCloseable {

    /** A core's thread woke this much later than it asked, or later: logged. */
    static final long LOGGED_MS = 20;
    private static final String READY = "machine freeze meter running on ";
    private static final String FREEZE = "freeze ";
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(1);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    /** One core stopped from {@code startEpochMs} for {@code millis}. */
    record Freeze(int cpu, long startEpochMs, long millis) {

        long endEpochMs() {
            return startEpochMs + millis;
        }
    }

    private final ChildJvm process;

    private MachineFreezes(ChildJvm process) {
        this.process = process;
    }

    /** Starts the meter, its output in {@code log}, and waits until every core's thread runs. */
    static MachineFreezes start(Path log) throws InterruptedException {
        // A small heap and a collector without concurrent threads: the meter allocates only when it logs.
        return new MachineFreezes(ChildJvm.startAndAwait("the machine freeze meter",
                List.of("-Xmx32m", "-XX:+UseSerialGC"), MachineFreezes.class.getName(), List.of(), log, READY,
                READY_TIMEOUT));
    }

    /** The freezes of at least {@code minimumMs} that overlap {@code [fromEpochMs, toEpochMs]}, logged so far. */
    List<Freeze> overlapping(long fromEpochMs, long toEpochMs, long minimumMs) {
        process.requireAlive();
        return overlapping(parse(process.lines()), fromEpochMs, toEpochMs, minimumMs);
    }

    static List<Freeze> overlapping(List<Freeze> freezes, long fromEpochMs, long toEpochMs, long minimumMs) {
        return freezes.stream()
                .filter(f -> f.millis() >= minimumMs && f.startEpochMs() <= toEpochMs && f.endEpochMs() >= fromEpochMs)
                .toList();
    }

    long pid() {
        return process.pid();
    }

    /** The freezes among the meter's log lines. */
    static List<Freeze> parse(List<String> lines) {
        List<Freeze> freezes = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith(FREEZE)) {
                String[] fields = line.substring(FREEZE.length()).split(" ");
                freezes.add(new Freeze(Integer.parseInt(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2])));
            }
        }
        return freezes;
    }

    static String line(Freeze freeze) {
        return FREEZE + freeze.cpu() + " " + freeze.startEpochMs() + " " + freeze.millis();
    }

    @Override
    public void close() throws InterruptedException {
        process.stopAndClose(STOP_TIMEOUT);
    }

    /** Runs the meter until its standard input closes (the bench that started it has gone) or SIGTERM. */
    public static void main(String[] args) throws IOException, InterruptedException {
        int cpus = Runtime.getRuntime().availableProcessors();
        CountDownLatch running = new CountDownLatch(cpus);
        List<String> pinning = new ArrayList<>();
        for (int cpu = 0; cpu < cpus; cpu++) {
            int core = cpu;
            Thread meter = new Thread(() -> {
                String pinned = pin(core);
                synchronized (pinning) {
                    pinning.add(pinned);
                }
                running.countDown();
                watch(core);
            }, "freeze-meter-" + cpu);
            meter.setDaemon(true);
            meter.start();
        }
        running.await();
        System.out.println(READY + cpus + " cores: " + String.join("; ", pinning));
        System.out.flush();
        ChildJvm.awaitParentGone();
        System.exit(0);
    }

    /**
     * Pins the calling thread to {@code cpu} with {@code taskset}, so that it stops when that core does: unpinned,
     * the kernel would move it to the core still running. Says what it did.
     */
    private static String pin(int cpu) {
        try {
            // /proc/thread-self is <pid>/task/<tid>: the kernel's id of this thread, which taskset takes.
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            String tid = self.getFileName().toString();
            Process taskset = new ProcessBuilder("taskset", "-p", "-c", Integer.toString(cpu), tid)
                    .redirectErrorStream(true).start();
            String output = new String(taskset.getInputStream().readAllBytes()).trim();
            if (!taskset.waitFor(10, TimeUnit.SECONDS) || taskset.exitValue() != 0) {
                return "core " + cpu + " unpinned (taskset: " + output + ")";
            }
            return "core " + cpu + " pinned";
        } catch (IOException | UnsupportedOperationException e) {
            return "core " + cpu + " unpinned (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "core " + cpu + " unpinned (interrupted)";
        }
    }

    private static void watch(int cpu) {
        long sleep = TimeUnit.MILLISECONDS.toNanos(1);
        long logged = TimeUnit.MILLISECONDS.toNanos(LOGGED_MS);
        long last = System.nanoTime();
        long lastEpochMs = System.currentTimeMillis();
        while (true) {
            LockSupport.parkNanos(sleep);
            long now = System.nanoTime();
            long nowEpochMs = System.currentTimeMillis();
            if (now - last >= logged) {
                String line = line(new Freeze(cpu, lastEpochMs, TimeUnit.NANOSECONDS.toMillis(now - last)));
                synchronized (System.out) {
                    System.out.println(line);
                    System.out.flush();
                }
            }
            last = now;
            lastEpochMs = nowEpochMs;
        }
    }
}

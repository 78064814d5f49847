package dev.quotaenforcer.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Where the CPU went while a setup answered its turns, from cumulative counters: its application's
 * threads, the rest of this JVM (the gateway client, the JIT compilers, the collector and the
 * application waiting for its turn), the broker's JVM, and how busy the machine's cores were. On two
 * shared cores a latency turn's tail grows with how busy they are, so this tells a setup slowed by
 * its own work from one slowed by the broker or the machine.
 *
 * @param requests     the requests asked, warm-up included, so CPU per request spans the whole turn
 * @param busyTicks    the machine's time running anything, in {@code /proc/stat} ticks; NaN where unreadable
 * @param elapsedTicks the machine's time in all, busy or idle (a host's steal included), in the same ticks
 */
record TurnCpu(long requests, double applicationNanos, double jvmNanos, double brokerNanos, double busyTicks,
               double elapsedTicks) {

    private static final Path MACHINE = Path.of("/proc/stat");

    /**
     * The counters so far.
     *
     * @param application the application id: every thread of a Kafka Streams application carries it in its name
     * @param asked       the requests the setup's gateway asked so far
     */
    static TurnCpu of(String application, long asked, BrokerJvm broker) {
        long[] machine = machineTicks(MACHINE);
        return new TurnCpu(asked, ThreadCpu.nanos(application + "-"), ThreadTimes.processCpuSoFar(), broker.cpuNanos(),
                machine == null ? Double.NaN : machine[0], machine == null ? Double.NaN : machine[1]);
    }

    TurnCpu since(TurnCpu before) {
        return new TurnCpu(requests - before.requests, applicationNanos - before.applicationNanos,
                jvmNanos - before.jvmNanos, brokerNanos - before.brokerNanos, busyTicks - before.busyTicks,
                elapsedTicks - before.elapsedTicks);
    }

    TurnCpu plus(TurnCpu other) {
        return new TurnCpu(requests + other.requests, applicationNanos + other.applicationNanos,
                jvmNanos + other.jvmNanos, brokerNanos + other.brokerNanos, busyTicks + other.busyTicks,
                elapsedTicks + other.elapsedTicks);
    }

    /** The application's CPU per request, in µs. */
    double applicationMicros() {
        return perRequestMicros(applicationNanos);
    }

    /** The CPU per request of the rest of this JVM, the gateway client above all, in µs. */
    double restOfJvmMicros() {
        return perRequestMicros(jvmNanos - applicationNanos);
    }

    /** The broker's CPU per request, in µs. */
    double brokerMicros() {
        return perRequestMicros(brokerNanos);
    }

    /** The share of the machine's core time that was busy, from 0 to 1; NaN where the machine could not tell. */
    double machineBusy() {
        return elapsedTicks > 0 ? busyTicks / elapsedTicks : Double.NaN;
    }

    private double perRequestMicros(double nanos) {
        return requests > 0 ? nanos / requests / 1e3 : Double.NaN;
    }

    /**
     * The busy and elapsed ticks of every core so far, from {@code stat}'s first line (user, nice, system,
     * idle, iowait, irq, softirq, steal, ...; guest time is counted in user already): null where it is unreadable.
     */
    static long[] machineTicks(Path stat) {
        try {
            List<String> lines = Files.readAllLines(stat, StandardCharsets.US_ASCII);
            if (lines.isEmpty() || !lines.get(0).startsWith("cpu ")) {
                return null;
            }
            long[] columns = Arrays.stream(lines.get(0).substring(4).trim().split("\\s+")).mapToLong(Long::parseLong)
                    .toArray();
            long elapsed = Arrays.stream(columns, 0, Math.min(columns.length, 8)).sum();
            // Idle, iowait and steal (time the host took from the machine) are not this machine's work.
            long notBusy = columns[3] + columns[4] + (columns.length > 7 ? columns[7] : 0);
            return new long[] {elapsed - notBusy, elapsed};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}

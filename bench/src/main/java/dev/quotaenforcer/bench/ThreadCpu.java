package dev.quotaenforcer.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.function.Predicate;

/**
 * CPU time spent by the threads of one Kafka client in this JVM, found by name: on a shared machine
 * the CPU an application needs per record varies far less than its wall-clock throughput.
 */
final class ThreadCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private ThreadCpu() {
    }

    /** Nanoseconds of CPU used so far by the live threads whose name contains {@code namePart}. */
    static long nanos(String namePart) {
        return nanos(name -> name.contains(namePart));
    }

    /**
     * Nanoseconds of CPU used so far by an application's stream threads alone, not the producer
     * network threads that carry their names after a prefix of their own.
     */
    static long streamThreadNanos(String application) {
        return nanos(name -> name.startsWith(application) && name.contains("-StreamThread-"));
    }

    private static long nanos(Predicate<String> named) {
        long total = 0;
        for (ThreadInfo thread : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (thread != null && named.test(thread.getThreadName())) {
                long cpu = THREADS.getThreadCpuTime(thread.getThreadId());
                total += Math.max(0, cpu);
            }
        }
        return total;
    }
}

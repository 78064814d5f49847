package dev.quotaenforcer.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Where one Kafka Streams application's stream thread spent a run's wall-clock time: running (its
 * CPU), blocked on Kafka (Kafka's cumulative blocked-time metrics: flushing the producer, sending
 * offsets to and committing the transaction), or neither (waiting for records, or for a core), and
 * the CPU the rest of this JVM used meanwhile (the JIT compilers, the embedded broker, the benchmark).
 * Tells a run limited by the thread's CPU from one limited by commits or by the machine.
 */
record ThreadTimes(long streamThreadCpuNanos, long processCpuNanos, double blockedNanos, double flushNanos,
                   double sendOffsetsNanos, double commitNanos, long compilingNanos) {

    /** The application's times so far: {@code metrics} are its {@code KafkaStreams.metrics()}. */
    static ThreadTimes of(String application, Supplier<Map<MetricName, ? extends Metric>> metrics) {
        Map<MetricName, ? extends Metric> all = metrics.get();
        return new ThreadTimes(ThreadCpu.streamThreadNanos(application), processCpuSoFar(),
                sum(all, "stream-thread-metrics", "blocked-time-ns-total"), sum(all, "producer-metrics", "flush-time-ns-total"),
                sum(all, "producer-metrics", "txn-send-offsets-time-ns-total"),
                sum(all, "producer-metrics", "txn-commit-time-ns-total"), compilingSoFar());
    }

    /** What was spent between {@code before} and this. */
    ThreadTimes since(ThreadTimes before) {
        return new ThreadTimes(streamThreadCpuNanos - before.streamThreadCpuNanos, processCpuNanos - before.processCpuNanos,
                blockedNanos - before.blockedNanos, flushNanos - before.flushNanos,
                sendOffsetsNanos - before.sendOffsetsNanos, commitNanos - before.commitNanos,
                compilingNanos - before.compilingNanos);
    }

    /** The sum of one metric over every client and thread that reports it (a producer per thread, say). */
    static double sum(Map<MetricName, ? extends Metric> metrics, String group, String name) {
        double total = 0;
        for (Map.Entry<MetricName, ? extends Metric> metric : metrics.entrySet()) {
            if (metric.getKey().group().equals(group) && metric.getKey().name().equals(name)
                    && metric.getValue().metricValue() instanceof Number value) {
                total += value.doubleValue();
            }
        }
        return total;
    }

    /** The time this JVM's JIT compilers spent compiling so far, summed over them; 0 where the JVM cannot tell. */
    static long compilingSoFar() {
        CompilationMXBean compilers = ManagementFactory.getCompilationMXBean();
        return compilers != null && compilers.isCompilationTimeMonitoringSupported()
                ? TimeUnit.MILLISECONDS.toNanos(compilers.getTotalCompilationTime()) : 0;
    }

    /** This JVM's CPU so far, every thread, in ns; 0 where the JVM cannot tell. */
    static long processCpuSoFar() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }
}

package dev.quotaenforcer.bench;

import java.util.List;
import org.apache.kafka.common.Metric;
import org.apache.kafka.streams.KafkaStreams;

/**
 * How long a Kafka Streams application's commits held its stream thread in Kafka's calls, from its
 * cumulative metrics: the commits, and the time in the producer's flush (waiting for every record sent
 * so far), in sending the input offsets to the transaction and in committing it. The flush is where a
 * commit waits for what the tasks wrote as they were prepared for it.
 */
record CommitTimes(double commits, double flushNanos, double sendOffsetsNanos, double commitNanos) {

    /** The totals so far of every stream thread of {@code streams}. */
    static CommitTimes of(KafkaStreams streams) {
        double[] totals = new double[4];
        List<String> names = List.of("commit-total", "flush-time-ns-total", "txn-send-offsets-time-ns-total",
                "txn-commit-time-ns-total");
        for (Metric metric : streams.metrics().values()) {
            String group = metric.metricName().group();
            int index = names.indexOf(metric.metricName().name());
            boolean counted = index == 0 ? group.equals("stream-thread-metrics") : group.equals("producer-metrics");
            if (index >= 0 && counted && metric.metricValue() instanceof Double value && !value.isNaN()) {
                totals[index] += value;
            }
        }
        return new CommitTimes(totals[0], totals[1], totals[2], totals[3]);
    }

    CommitTimes since(CommitTimes before) {
        return new CommitTimes(commits - before.commits, flushNanos - before.flushNanos,
                sendOffsetsNanos - before.sendOffsetsNanos, commitNanos - before.commitNanos);
    }

    CommitTimes plus(CommitTimes other) {
        return new CommitTimes(commits + other.commits, flushNanos + other.flushNanos,
                sendOffsetsNanos + other.sendOffsetsNanos, commitNanos + other.commitNanos);
    }

    double flushMsPerCommit() {
        return perCommitMs(flushNanos);
    }

    double sendOffsetsMsPerCommit() {
        return perCommitMs(sendOffsetsNanos);
    }

    double commitMsPerCommit() {
        return perCommitMs(commitNanos);
    }

    private double perCommitMs(double nanos) {
        return commits == 0 ? Double.NaN : nanos / commits / 1e6;
    }
}

package dev.quotaenforcer.bench;

import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
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
        Map<MetricName, ? extends Metric> all = streams.metrics();
        return new CommitTimes(ThreadTimes.sum(all, "stream-thread-metrics", "commit-total"),
                ThreadTimes.sum(all, "producer-metrics", "flush-time-ns-total"),
                ThreadTimes.sum(all, "producer-metrics", "txn-send-offsets-time-ns-total"),
                ThreadTimes.sum(all, "producer-metrics", "txn-commit-time-ns-total"));
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

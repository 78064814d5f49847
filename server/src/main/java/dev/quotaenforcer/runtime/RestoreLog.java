package dev.quotaenforcer.runtime;

import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs one line each time the stores of this process finish restoring from their changelogs: how
 * many records of each store, in how many partitions, and how long from the first partition starting
 * to the last one ending. Operators size restarts without state (a new host, a wiped disk) by it.
 */
final class RestoreLog implements StateRestoreListener {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreLog.class);

    private final LongSupplier nanoTime;
    private final Set<TopicPartition> restoring = new HashSet<>();
    private final Map<String, Long> restoredByStore = new TreeMap<>();
    private int partitions;
    private long startedNanos;

    /** @param nanoTime a monotonic clock in nanoseconds, {@code System::nanoTime} when running */
    RestoreLog(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
        if (restoring.isEmpty()) {
            startedNanos = nanoTime.getAsLong();
            restoredByStore.clear();
            partitions = 0;
        }
        if (restoring.add(partition)) {
            partitions++;
        }
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long restored) {
        // Only whole restores are logged.
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        finished(partition, store, totalRestored).ifPresent(RestoreLog::log);
    }

    @Override
    public void onRestoreSuspended(TopicPartition partition, String store, long totalRestored) {
        // The partition moved to another instance mid-restore: what it restored still took the time.
        finished(partition, store, totalRestored).ifPresent(RestoreLog::log);
    }

    /** One finished restore: how many records, and the line that says so. */
    record Summary(long records, String line) {
    }

    /** Restores of empty changelogs (every start of a new application, say) are no news to operators. */
    private static void log(Summary summary) {
        if (summary.records() == 0) {
            LOG.debug(summary.line());
        } else {
            LOG.info(summary.line());
        }
    }

    /** Counts a partition's restore as done; the summary line once no partition is restoring any more. */
    synchronized Optional<Summary> finished(TopicPartition partition, String store, long totalRestored) {
        if (!restoring.remove(partition)) {
            return Optional.empty();
        }
        restoredByStore.merge(store, totalRestored, Long::sum);
        if (!restoring.isEmpty()) {
            return Optional.empty();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - startedNanos);
        long records = restoredByStore.values().stream().mapToLong(Long::longValue).sum();
        StringJoiner stores = new StringJoiner(", ");
        restoredByStore.forEach((name, count) -> stores.add(name + " " + count));
        return Optional.of(new Summary(records, "Restored " + records + " records in " + millis + " ms: " + stores + " ("
                + partitions + " partitions)"));
    }
}

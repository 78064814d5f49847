package dev.quotaenforcer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The restore summary covers every partition restoring at once, from the first start to the last end. */
class RestoreLogTest {

    private final AtomicLong nanos = new AtomicLong();
    private final RestoreLog log = new RestoreLog(nanos::get);
    private final TopicPartition state0 = new TopicPartition("app-quota-state-changelog", 0);
    private final TopicPartition state1 = new TopicPartition("app-quota-state-changelog", 1);
    private final TopicPartition usage0 = new TopicPartition("app-usage-by-hour-changelog", 0);

    @Test
    void shouldSummariseOnceTheLastRestoringPartitionEnds() {
        log.onRestoreStart(state0, "quota-state", 0, 100);
        advanceMillis(5);
        log.onRestoreStart(state1, "quota-state", 0, 50);
        log.onRestoreStart(usage0, "usage-by-hour", 0, 70);
        advanceMillis(20);
        assertEquals(Optional.empty(), line(state0, "quota-state", 100));
        assertEquals(Optional.empty(), line(usage0, "usage-by-hour", 70));
        advanceMillis(15);

        assertEquals(Optional.of("Restored 220 records in 40 ms: quota-state 150, usage-by-hour 70 (3 partitions)"),
                line(state1, "quota-state", 50));
    }

    @Test
    void shouldStartAFreshSummaryForALaterRestore() {
        log.onRestoreStart(state0, "quota-state", 0, 100);
        advanceMillis(10);
        line(state0, "quota-state", 100);
        advanceMillis(1000);
        log.onRestoreStart(state1, "quota-state", 0, 3);
        advanceMillis(2);

        assertEquals(Optional.of("Restored 3 records in 2 ms: quota-state 3 (1 partitions)"),
                line(state1, "quota-state", 3));
    }

    @Test
    void shouldIgnoreAnEndWithoutAStart() {
        assertEquals(Optional.empty(), line(state0, "quota-state", 7));
    }

    @Test
    void countsARestoreOfEmptyChangelogsAsNoRecordsSoItIsNotLoggedAsNews() {
        log.onRestoreStart(state0, "quota-state", 0, 0);
        log.onRestoreStart(usage0, "usage-by-hour", 0, 0);
        log.finished(state0, "quota-state", 0);

        assertEquals(0, log.finished(usage0, "usage-by-hour", 0).orElseThrow().records());
    }

    private Optional<String> line(TopicPartition partition, String store, long restored) {
        return log.finished(partition, store, restored).map(RestoreLog.Summary::line);
    }

    private void advanceMillis(long millis) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }
}

package dev.quotaenforcer.runtime;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortableException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces a stream thread that died because the broker ended its transaction under it (a thread
 * stalled past its transaction timeout, by a GC pause or a frozen VM, finds its transaction aborted
 * and its producer epoch bumped); shuts the instance down on anything else, or when such faults
 * repeat more than a few times in a window.
 */
final class LostTransactionHandler implements StreamsUncaughtExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(LostTransactionHandler.class);
    /**
     * What the broker answers a producer whose transaction it aborted or whose epoch it bumped. Kafka
     * Streams treats most of these as a migrated task and rejoins; some reach the thread as fatal
     * depending on the request that meets them (KAFKA-19690 was one), and a new thread with a new
     * producer recovers from all of them: its tasks are closed dirty and restored from the changelogs.
     */
    private static final List<Class<? extends Throwable>> LOST_TRANSACTION = List.of(ProducerFencedException.class,
            InvalidProducerEpochException.class, InvalidTxnStateException.class, InvalidPidMappingException.class,
            UnknownProducerIdException.class, TransactionAbortableException.class, TaskMigratedException.class);

    private final int maxReplacements;
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private final Deque<Long> replacements = new ArrayDeque<>();

    /** At most {@code maxReplacements} threads replaced within {@code window}, timed by {@code nanoTime}. */
    LostTransactionHandler(int maxReplacements, Duration window, LongSupplier nanoTime) {
        this.maxReplacements = maxReplacements;
        this.windowNanos = window.toNanos();
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized StreamThreadExceptionResponse handle(Throwable exception) {
        if (!lostTransaction(exception)) {
            LOG.error("A stream thread failed; shutting the instance down", exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        long now = nanoTime.getAsLong();
        while (!replacements.isEmpty() && now - replacements.peekFirst() > windowNanos) {
            replacements.removeFirst();
        }
        if (replacements.size() >= maxReplacements) {
            LOG.error("A stream thread lost its transaction {} times within {} s; shutting the instance down",
                    replacements.size() + 1, Duration.ofNanos(windowNanos).toSeconds(), exception);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        }
        replacements.addLast(now);
        LOG.warn("A stream thread lost its transaction (the broker aborted it, usually after the thread stalled past "
                + "transaction.timeout.ms); replacing the thread, its tasks restart from their changelogs", exception);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    private static boolean lostTransaction(Throwable exception) {
        // Bounded: a cause chain can be cyclic.
        Throwable cause = exception;
        for (int depth = 0; cause != null && depth < 16; depth++, cause = cause.getCause()) {
            for (Class<? extends Throwable> lost : LOST_TRANSACTION) {
                if (lost.isInstance(cause)) {
                    return true;
                }
            }
        }
        return false;
    }
}

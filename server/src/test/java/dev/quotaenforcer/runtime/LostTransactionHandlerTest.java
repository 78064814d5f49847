package dev.quotaenforcer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class LostTransactionHandlerTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final LostTransactionHandler handler = new LostTransactionHandler(2, Duration.ofMinutes(10), now::get);

    @Test
    void aTransactionTheBrokerAbortedUnderTheThreadReplacesTheThread() {
        // What Kafka Streams throws when commitTransaction meets INVALID_TXN_STATE after a stall.
        StreamsException fatal = new StreamsException("Error encountered trying to commit a transaction",
                new KafkaException("wrapped", new InvalidTxnStateException("The transaction was aborted")));
        assertEquals(StreamThreadExceptionResponse.REPLACE_THREAD, handler.handle(fatal));
    }

    @Test
    void anyOtherFailureShutsTheInstanceDown() {
        assertEquals(StreamThreadExceptionResponse.SHUTDOWN_CLIENT,
                handler.handle(new StreamsException("processing failed", new IllegalStateException("a bug"))));
        assertEquals(StreamThreadExceptionResponse.SHUTDOWN_CLIENT, handler.handle(new KafkaException("fatal")));
    }

    @Test
    void lostTransactionsRepeatingWithinTheWindowShutTheInstanceDownAndOldOnesAreForgotten() {
        assertEquals(StreamThreadExceptionResponse.REPLACE_THREAD, handler.handle(new ProducerFencedException("1")));
        now.addAndGet(Duration.ofMinutes(6).toNanos());
        assertEquals(StreamThreadExceptionResponse.REPLACE_THREAD, handler.handle(new InvalidProducerEpochException("2")));
        now.addAndGet(Duration.ofMinutes(3).toNanos());
        assertEquals(StreamThreadExceptionResponse.SHUTDOWN_CLIENT, handler.handle(new ProducerFencedException("3")));
        // The first replacement is now more than ten minutes old: one of the two allowed is free again.
        now.addAndGet(Duration.ofMinutes(2).toNanos());
        assertEquals(StreamThreadExceptionResponse.REPLACE_THREAD, handler.handle(new ProducerFencedException("4")));
    }

    @Test
    void aCyclicCauseChainIsJudgedWithoutLooping() {
        KafkaException first = new KafkaException("first");
        KafkaException second = new KafkaException("second", first);
        first.initCause(second);
        assertEquals(StreamThreadExceptionResponse.SHUTDOWN_CLIENT, handler.handle(first));
    }
}

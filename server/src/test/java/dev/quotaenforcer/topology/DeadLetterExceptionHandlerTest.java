package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.header;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/** What Kafka Streams is told to do with a record it cannot read, process or write: dead-letter it and go on. */
class DeadLetterExceptionHandlerTest {

    static final byte[] KEY = {1, 2};
    static final byte[] VALUE = "{not json".getBytes();

    final DeadLetterExceptionHandler handler = configured(Map.of(EnforcerConfig.TOPIC_PREFIX_CONFIG, "acme",
            EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG, "4"));
    final ErrorHandlerContext context = new Context();

    @Test
    void anUnreadableRecordIsDeadLetteredWithWhereItWasReadAndTheStreamGoesOn() {
        DeserializationExceptionHandler.Response response = handler.handleError(context,
                new ConsumerRecord<>("acme.requests", 3, 42L, KEY, VALUE), new SerializationException("bad json"));

        assertEquals(DeserializationExceptionHandler.Result.RESUME, response.result());
        ProducerRecord<byte[], byte[]> letter = only(response.deadLetterQueueRecords());
        assertEquals("acme.dead-letter", letter.topic());
        assertEquals(DeadLetterExceptionHandler.UNREADABLE, header(letter.headers(), DeadLetter.ERROR));
        assertEquals("cannot be read: org.apache.kafka.common.errors.SerializationException: bad json",
                header(letter.headers(), DeadLetter.REASON));
        assertEquals("acme.requests", header(letter.headers(), DeadLetter.SOURCE_TOPIC));
        assertEquals("3", header(letter.headers(), DeadLetter.SOURCE_PARTITION));
        assertEquals("42", header(letter.headers(), DeadLetter.SOURCE_OFFSET));
        assertArrayEquals("{not".getBytes(), letter.value(), "cut to quota.dead.letter.max.bytes");
        assertEquals("9 bytes cut to 4", header(letter.headers(), DeadLetter.TRUNCATED));
    }

    @Test
    void aRecordAProcessorFailedOnIsDeadLetteredAndTheStreamGoesOn() {
        ProcessingExceptionHandler.Response response = handler.handleError(context, new Record<>("k", "v", 0L),
                new IllegalStateException("bug"));

        assertEquals(ProcessingExceptionHandler.Result.RESUME, response.result());
        ProducerRecord<byte[], byte[]> letter = only(response.deadLetterQueueRecords());
        assertEquals(DeadLetterExceptionHandler.PROCESSING_FAILED, header(letter.headers(), DeadLetter.ERROR));
        assertEquals("processor quota-decider failed: java.lang.IllegalStateException: bug",
                header(letter.headers(), DeadLetter.REASON));
    }

    @Test
    void anOutputTheBrokerRefusesDeadLettersItsInputAndTheStreamGoesOn() {
        ProductionExceptionHandler.Response response = handler.handleError(context,
                new ProducerRecord<>("acme.replies", new byte[0], new byte[2_000_000]), new RecordTooLargeException("2 MB"));

        assertEquals(ProductionExceptionHandler.Result.RESUME, response.result());
        ProducerRecord<byte[], byte[]> letter = only(response.deadLetterQueueRecords());
        assertEquals(DeadLetterExceptionHandler.NOT_WRITTEN, header(letter.headers(), DeadLetter.ERROR));
        assertTrue(header(letter.headers(), DeadLetter.REASON).startsWith("its output to acme.replies was refused: "
                + "org.apache.kafka.common.errors.RecordTooLargeException: 2 MB"));
        assertArrayEquals("{not".getBytes(), letter.value(), "the input that made it, as read");
    }

    @Test
    void aRetriableSendErrorIsLeftToTheProducersRetries() {
        assertEquals(ProductionExceptionHandler.Result.RETRY, handler.handleError(context,
                new ProducerRecord<>("acme.decisions", KEY, VALUE), new NotLeaderOrFollowerException("moved")).result());
    }

    @Test
    void aRefusedDeadLetterIsDroppedRatherThanDeadLetteredAgain() {
        ProductionExceptionHandler.Response response = handler.handleError(context,
                new ProducerRecord<>("acme.dead-letter", KEY, VALUE), new RecordTooLargeException("huge"));

        assertEquals(ProductionExceptionHandler.Result.RESUME, response.result());
        assertEquals(List.of(), response.deadLetterQueueRecords());
    }

    private static DeadLetterExceptionHandler configured(Map<String, ?> settings) {
        DeadLetterExceptionHandler handler = new DeadLetterExceptionHandler();
        handler.configure(settings);
        return handler;
    }

    private static ProducerRecord<byte[], byte[]> only(List<ProducerRecord<byte[], byte[]>> records) {
        assertEquals(1, records.size());
        return records.get(0);
    }

    /** Where the failing record was read: partition 3 of acme.requests, offset 42, in the decider. */
    private static final class Context implements ErrorHandlerContext {

        @Override
        public String topic() {
            return "acme.requests";
        }

        @Override
        public int partition() {
            return 3;
        }

        @Override
        public long offset() {
            return 42;
        }

        @Override
        public Headers headers() {
            return new RecordHeaders();
        }

        @Override
        public String processorNodeId() {
            return "quota-decider";
        }

        @Override
        public TaskId taskId() {
            return new TaskId(0, 3);
        }

        @Override
        public long timestamp() {
            return 1_000;
        }

        @Override
        public byte[] sourceRawKey() {
            return KEY;
        }

        @Override
        public byte[] sourceRawValue() {
            return VALUE;
        }
    }
}

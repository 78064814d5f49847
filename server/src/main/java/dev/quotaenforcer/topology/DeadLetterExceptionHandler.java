package dev.quotaenforcer.topology;

import dev.quotaenforcer.config.EnforcerConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Streams' handler for records it cannot read, process or write: each goes to the dead-letter
 * topic with its source topic, partition and offset and the reason, and the stream goes on. One
 * record, on any input topic or refused by the broker on the way out (too large, invalid), would
 * otherwise stop the instance, and under exactly-once every instance that took its task over.
 * Retriable send errors are left to the producer's retries.
 */
public final class DeadLetterExceptionHandler
        implements DeserializationExceptionHandler, ProcessingExceptionHandler, ProductionExceptionHandler {

    /** The error of a record no serde could read. */
    public static final String UNREADABLE = "UNREADABLE_RECORD";
    /** The error of a record a processor failed on. */
    public static final String PROCESSING_FAILED = "PROCESSING_FAILED";
    /** The error of a record whose output the broker or a serializer refused. */
    public static final String NOT_WRITTEN = "OUTPUT_REFUSED";

    private static final String PRODUCER_NETWORK_THREAD = "kafka-producer-network-thread";
    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterExceptionHandler.class);

    private String deadLetterTopic;
    private int maxBytes;

    /** The largest dead letter, in bytes, that the enforcer writes with this {@code quota.dead.letter.max.bytes}. */
    public static long largestDeadLetter(int maxBytes) {
        return DeadLetter.maxSize(maxBytes);
    }

    /** Reads the topic prefix and dead-letter size the enforcer passes among the Streams settings. */
    @Override
    public void configure(Map<String, ?> configs) {
        Map<String, Object> own = new HashMap<>();
        for (String name : List.of(EnforcerConfig.TOPIC_PREFIX_CONFIG, EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG)) {
            if (configs.get(name) != null) {
                own.put(name, configs.get(name));
            }
        }
        EnforcerConfig config = new EnforcerConfig(own);
        deadLetterTopic = Topics.withPrefix(config.topicPrefix()).deadLetter().name();
        maxBytes = config.deadLetterMaxBytes();
    }

    @Override
    public DeserializationExceptionHandler.Response handleError(ErrorHandlerContext context,
                                                                ConsumerRecord<byte[], byte[]> record, Exception exception) {
        LOG.warn("Dead-lettering unreadable record {}-{}@{}: {}", record.topic(), record.partition(), record.offset(),
                exception.toString());
        return DeserializationExceptionHandler.Response.resume(List.of(letter(context, UNREADABLE,
                "cannot be read: " + exception, record.key(), record.value())));
    }

    @Override
    public ProcessingExceptionHandler.Response handleError(ErrorHandlerContext context, Record<?, ?> record,
                                                           Exception exception) {
        LOG.error("Dead-lettering record {}-{}@{} that processor {} failed on", context.topic(), context.partition(),
                context.offset(), context.processorNodeId(), exception);
        return ProcessingExceptionHandler.Response.resume(List.of(letter(context, PROCESSING_FAILED,
                "processor " + context.processorNodeId() + " failed: " + exception, context.sourceRawKey(),
                context.sourceRawValue())));
    }

    @Override
    public ProductionExceptionHandler.Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
                                                           Exception exception) {
        if (exception instanceof RetriableException) {
            return ProductionExceptionHandler.Response.retry();
        }
        return refused(context, record.topic(), exception);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public ProductionExceptionHandler.Response handleSerializationError(ErrorHandlerContext context, ProducerRecord record,
                                                                        Exception exception,
                                                                        SerializationExceptionOrigin origin) {
        return refused(context, record.topic(), exception);
    }

    private ProductionExceptionHandler.Response refused(ErrorHandlerContext context, String topic, Exception exception) {
        if (deadLetterTopic.equals(topic)) {
            // Dead letters fit by construction (checked at startup); one refused anyway is not retried into a loop.
            LOG.error("The broker refused a dead letter from {}-{}@{}; dropped", context.topic(), context.partition(),
                    context.offset(), exception);
            return ProductionExceptionHandler.Response.resume();
        }
        if (Thread.currentThread().getName().startsWith(PRODUCER_NETWORK_THREAD)) {
            // Refused by the broker, reported on the producer's I/O thread: a dead letter sent from here would wait
            // for metadata only this thread fetches. Every output is bounded below what its topic accepts (checked
            // at startup), so only a topic changed since gets here; under exactly-once its transaction aborts anyway.
            LOG.error("The broker refused the output to {} of record {}-{}@{}; not dead-lettered from the producer's "
                    + "thread", topic, context.topic(), context.partition(), context.offset(), exception);
            return ProductionExceptionHandler.Response.resume();
        }
        LOG.warn("Dead-lettering record {}-{}@{}: its output to {} was refused: {}", context.topic(), context.partition(),
                context.offset(), topic, exception.toString());
        return ProductionExceptionHandler.Response.resume(List.of(letter(context, NOT_WRITTEN,
                "its output to " + topic + " was refused: " + exception, context.sourceRawKey(), context.sourceRawValue())));
    }

    private ProducerRecord<byte[], byte[]> letter(ErrorHandlerContext context, String error, String reason, byte[] key,
                                                  byte[] value) {
        DeadLetter letter = DeadLetter.of(new Rejection(error, reason, key, value,
                        context.headers() == null ? new RecordHeaders() : context.headers()),
                context.topic(), context.partition(), context.offset(), maxBytes);
        return new ProducerRecord<>(deadLetterTopic, null, context.timestamp() < 0 ? null : context.timestamp(),
                letter.key(), letter.value(), letter.headers());
    }
}

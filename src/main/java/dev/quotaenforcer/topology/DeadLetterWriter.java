package dev.quotaenforcer.topology;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Writes a rejected record to the dead-letter topic: the original key and value (the value cut to
 * a configured size, so an oversize record cannot be refused by the broker a second time), and
 * headers naming the error, the reason and where the record came from.
 */
final class DeadLetterWriter<K> implements Processor<K, Rejection, byte[], byte[]> {

    static final String ERROR = "dlq.error";
    static final String REASON = "dlq.reason";
    static final String SOURCE_TOPIC = "dlq.source.topic";
    static final String SOURCE_PARTITION = "dlq.source.partition";
    static final String SOURCE_OFFSET = "dlq.source.offset";
    static final String TRUNCATED = "dlq.truncated";

    private final int maxValueBytes;
    private ProcessorContext<byte[], byte[]> context;

    DeadLetterWriter(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<K, Rejection> record) {
        Rejection rejection = record.value();
        Headers headers = record.headers();
        add(headers, ERROR, rejection.error());
        add(headers, REASON, rejection.reason());
        context.recordMetadata().ifPresent(source -> addSource(headers, source));
        byte[] value = rejection.value();
        if (value != null && value.length > maxValueBytes) {
            add(headers, TRUNCATED, value.length + " bytes cut to " + maxValueBytes);
            value = Arrays.copyOf(value, maxValueBytes);
        }
        context.forward(new Record<>(rejection.key(), value, record.timestamp(), headers));
    }

    private static void addSource(Headers headers, RecordMetadata source) {
        add(headers, SOURCE_TOPIC, source.topic());
        add(headers, SOURCE_PARTITION, Integer.toString(source.partition()));
        add(headers, SOURCE_OFFSET, Long.toString(source.offset()));
    }

    private static void add(Headers headers, String name, String value) {
        headers.remove(name);
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}

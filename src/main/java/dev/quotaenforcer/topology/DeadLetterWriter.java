package dev.quotaenforcer.topology;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Writes a rejected record to the dead-letter topic: the original key, value and headers, and
 * headers naming the error, the reason and where the record came from. Each of key, value and the
 * original headers is cut to a configured size (headers {@code dlq.*.truncated} say so), so an
 * oversize record cannot be refused by the broker a second time, which would stop the stream.
 */
final class DeadLetterWriter<K> implements Processor<K, Rejection, byte[], byte[]> {

    static final String ERROR = "dlq.error";
    static final String REASON = "dlq.reason";
    static final String SOURCE_TOPIC = "dlq.source.topic";
    static final String SOURCE_PARTITION = "dlq.source.partition";
    static final String SOURCE_OFFSET = "dlq.source.offset";
    static final String TRUNCATED = "dlq.truncated";
    static final String KEY_TRUNCATED = "dlq.key.truncated";
    static final String HEADERS_DROPPED = "dlq.headers.dropped";

    private final int maxBytes;
    private ProcessorContext<byte[], byte[]> context;

    DeadLetterWriter(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<K, Rejection> record) {
        Rejection rejection = record.value();
        Headers headers = new RecordHeaders();
        int originalHeaderBytes = 0;
        for (Header header : rejection.headers()) {
            originalHeaderBytes += header.key().length() + (header.value() == null ? 0 : header.value().length);
        }
        if (originalHeaderBytes <= maxBytes) {
            rejection.headers().forEach(headers::add);
        } else {
            add(headers, HEADERS_DROPPED, originalHeaderBytes + " bytes of headers dropped; at most " + maxBytes + " kept");
        }
        add(headers, ERROR, rejection.error());
        add(headers, REASON, rejection.reason());
        context.recordMetadata().ifPresent(source -> addSource(headers, source));
        byte[] key = cut(rejection.key(), headers, KEY_TRUNCATED);
        byte[] value = cut(rejection.value(), headers, TRUNCATED);
        context.forward(new Record<>(key, value, record.timestamp(), headers));
    }

    private byte[] cut(byte[] bytes, Headers headers, String note) {
        if (bytes == null || bytes.length <= maxBytes) {
            return bytes;
        }
        add(headers, note, bytes.length + " bytes cut to " + maxBytes);
        return Arrays.copyOf(bytes, maxBytes);
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

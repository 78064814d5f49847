package dev.quotaenforcer.topology;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A dead-letter record: the original key, value and headers, and headers naming the error, the reason
 * and where the record came from. Each of key, value and the original headers is cut to a configured
 * size (headers {@code dlq.*.truncated} say so) and the reason to {@link #MAX_REASON_CHARS}, so a dead
 * letter is never larger than {@link #maxSize} and the broker never refuses one.
 */
record DeadLetter(byte[] key, byte[] value, Headers headers) {

    static final String ERROR = "dlq.error";
    static final String REASON = "dlq.reason";
    static final String SOURCE_TOPIC = "dlq.source.topic";
    static final String SOURCE_PARTITION = "dlq.source.partition";
    static final String SOURCE_OFFSET = "dlq.source.offset";
    static final String TRUNCATED = "dlq.truncated";
    static final String KEY_TRUNCATED = "dlq.key.truncated";
    static final String HEADERS_DROPPED = "dlq.headers.dropped";
    static final int MAX_REASON_CHARS = 2_000;
    /** What the headers this class adds take at most, with the record's own framing. */
    private static final int OWN_BYTES = 16 * 1024;

    /** The largest dead letter, in bytes, when key, value and headers are each cut to {@code maxBytes}. */
    static long maxSize(int maxBytes) {
        return 3L * maxBytes + OWN_BYTES;
    }

    /**
     * @param topic where the rejected record was read, or null when unknown (then partition and offset are ignored)
     */
    static DeadLetter of(Rejection rejection, String topic, int partition, long offset, int maxBytes) {
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
        String reason = rejection.reason();
        add(headers, REASON, reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS - 3) + "...");
        if (topic != null) {
            add(headers, SOURCE_TOPIC, topic);
            add(headers, SOURCE_PARTITION, Integer.toString(partition));
            add(headers, SOURCE_OFFSET, Long.toString(offset));
        }
        byte[] key = cut(rejection.key(), headers, KEY_TRUNCATED, maxBytes);
        byte[] value = cut(rejection.value(), headers, TRUNCATED, maxBytes);
        return new DeadLetter(key, value, headers);
    }

    private static byte[] cut(byte[] bytes, Headers headers, String note, int maxBytes) {
        if (bytes == null || bytes.length <= maxBytes) {
            return bytes;
        }
        add(headers, note, bytes.length + " bytes cut to " + maxBytes);
        return Arrays.copyOf(bytes, maxBytes);
    }

    private static void add(Headers headers, String name, String value) {
        headers.remove(name);
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}

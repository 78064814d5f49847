package dev.quotaenforcer.event;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Where a gateway waits for the decision of its request, in Spring Kafka's request-reply convention:
 * the {@code kafka_replyTopic}, {@code kafka_replyPartition} and {@code kafka_correlationId} headers.
 *
 * @param partition     the reply partition, or -1 to let the key choose
 * @param correlationId echoed back in the reply's {@code kafka_correlationId} header; may be null
 */
public record ReplyAddress(String topic, int partition, byte[] correlationId) {

    public static final String TOPIC_HEADER = "kafka_replyTopic";
    public static final String PARTITION_HEADER = "kafka_replyPartition";
    public static final String CORRELATION_HEADER = "kafka_correlationId";

    /** The {@link #PARTITION_HEADER} value for {@code partition}: four bytes, big-endian, as Spring Kafka writes it. */
    public static byte[] partitionHeader(int partition) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(partition).array();
    }

    /** The partition a {@link #PARTITION_HEADER} value names, or -1 when it is missing or not four bytes. */
    public static int partition(byte[] header) {
        return header != null && header.length == Integer.BYTES ? ByteBuffer.wrap(header).getInt() : -1;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ReplyAddress that && topic.equals(that.topic) && partition == that.partition
                && Arrays.equals(correlationId, that.correlationId);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * topic.hashCode() + partition) + Arrays.hashCode(correlationId);
    }

    @Override
    public String toString() {
        return "ReplyAddress[" + topic + "/" + partition + ", correlationId " + Arrays.toString(correlationId) + "]";
    }
}

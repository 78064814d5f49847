package dev.quotaenforcer.topology;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where the Java client's default partitioner (and Kafka Streams) puts a key: murmur2 of the key
 * bytes modulo the partition count. Other clients differ (librdkafka's default is CRC32 based), so
 * a record produced by them may sit on another partition than the one that counts its key.
 */
final class KeyPlacement {

    private final int partitions;

    KeyPlacement(int partitions) {
        this.partitions = partitions;
    }

    int partitionOf(byte[] keyBytes) {
        return Utils.toPositive(Utils.murmur2(keyBytes)) % partitions;
    }

    /** Whether a record keyed {@code recordKey} and read from {@code source} sits where {@code apiKey}'s count is. */
    boolean holds(String apiKey, String recordKey, Optional<RecordMetadata> source) {
        return apiKey.equals(recordKey)
                && source.map(RecordMetadata::partition).orElse(-1) == partitionOf(apiKey.getBytes(StandardCharsets.UTF_8));
    }
}

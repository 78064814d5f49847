package dev.quotaenforcer.topology;

import org.apache.kafka.common.utils.Utils;

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
}

package dev.quotaenforcer.topology;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The topic settings of the changelogs written in batches (key entries, request ids): segments short
 * enough for compaction to drop the batches the stores retire, and their tombstones kept an hour. The
 * log cleaner never touches a topic's active segment, and Kafka's default segment takes 1 GiB or 7 days
 * to fill; until it rolls, every batch written since, retired or not, is read again by each restore
 * from the changelog: after a crash under exactly-once, on a new instance, on a standby. Kafka Streams
 * sets no segment size for changelogs, so these follow the one it sets for its repartition topics.
 */
final class BatchChangelogConfig {

    /** How long a changelog segment stays active at most: ten minutes of batches. */
    static final long SEGMENT_MS = 600_000L;
    /** How large a changelog segment grows at most. */
    static final long SEGMENT_BYTES = 50L * 1024 * 1024;
    /**
     * How long a retired batch's tombstone outlives its batch. Each task retires a batch or two per commit,
     * so Kafka's day of tombstones would be millions of records for a restore to read. A restore must end
     * within this time, or a batch it has read may lose its tombstone before it gets there.
     */
    static final long DELETE_RETENTION_MS = 3_600_000L;

    private BatchChangelogConfig() {
    }

    /**
     * The settings for a batch changelog topic, but for those the configuration sets for every internal
     * topic ({@code topic.segment.ms}, say), which Kafka Streams applies then.
     */
    static Map<String, String> of(Properties streamsProperties) {
        Map<String, String> config = new HashMap<>();
        putUnlessSet(config, streamsProperties, TopicConfig.SEGMENT_MS_CONFIG, SEGMENT_MS);
        putUnlessSet(config, streamsProperties, TopicConfig.SEGMENT_BYTES_CONFIG, SEGMENT_BYTES);
        putUnlessSet(config, streamsProperties, TopicConfig.DELETE_RETENTION_MS_CONFIG, DELETE_RETENTION_MS);
        return Map.copyOf(config);
    }

    private static void putUnlessSet(Map<String, String> config, Properties streamsProperties, String name, long value) {
        if (!streamsProperties.containsKey(StreamsConfig.topicPrefix(name))) {
            config.put(name, Long.toString(value));
        }
    }
}

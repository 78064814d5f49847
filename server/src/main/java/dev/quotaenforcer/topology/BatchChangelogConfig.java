package dev.quotaenforcer.topology;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The topic settings of the changelogs written in batches (key entries, request ids): segments short
 * enough for compaction to drop the batches the stores retire. The log cleaner never touches a topic's
 * active segment, and Kafka's default segment takes 1 GiB or 7 days to fill; until it rolls, every
 * batch written since, retired or not, is read again by each restore from the changelog: after a crash
 * under exactly-once, on a new instance, on a standby. Kafka Streams sets no segment size for
 * changelogs, so these follow the one it sets for its repartition topics.
 */
final class BatchChangelogConfig {

    /** How long a changelog segment stays active at most: ten minutes of batches. */
    static final long SEGMENT_MS = 600_000L;
    /** How large a changelog segment grows at most. */
    static final long SEGMENT_BYTES = 50L * 1024 * 1024;

    private BatchChangelogConfig() {
    }

    /**
     * The settings for a batch changelog topic, but for those the configuration sets for every internal
     * topic ({@code topic.segment.ms}, {@code topic.segment.bytes}), which Kafka Streams applies then.
     */
    static Map<String, String> of(Properties streamsProperties) {
        Map<String, String> config = new HashMap<>();
        putUnlessSet(config, streamsProperties, TopicConfig.SEGMENT_MS_CONFIG, SEGMENT_MS);
        putUnlessSet(config, streamsProperties, TopicConfig.SEGMENT_BYTES_CONFIG, SEGMENT_BYTES);
        return Map.copyOf(config);
    }

    private static void putUnlessSet(Map<String, String> config, Properties streamsProperties, String name, long value) {
        if (!streamsProperties.containsKey(StreamsConfig.topicPrefix(name))) {
            config.put(name, Long.toString(value));
        }
    }
}

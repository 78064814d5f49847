package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.config.EnforcerConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.StoreBuilder;
import org.junit.jupiter.api.Test;

class BatchChangelogConfigTest {

    private static final Map<String, String> SHORT_SEGMENTS = Map.of(
            TopicConfig.SEGMENT_MS_CONFIG, "600000",
            TopicConfig.SEGMENT_BYTES_CONFIG, "52428800",
            TopicConfig.DELETE_RETENTION_MS_CONFIG, "3600000");

    @Test
    void theBatchChangelogsRollTheirSegmentsEveryTenMinutesOr50MiBAndKeepTombstonesAnHour() {
        assertEquals(Map.of(QuotaTopology.STATE_STORE, SHORT_SEGMENTS, QuotaTopology.REQUEST_IDS_STORE, SHORT_SEGMENTS),
                batchChangelogConfigs(Map.of()));
    }

    @Test
    void aSegmentSettingGivenForEveryInternalTopicIsLeftToKafkaStreams() {
        // Kafka Streams lays a store's own topic settings over the configuration's topic.* ones: only by
        // leaving a setting out does the operator's apply.
        Map<String, String> withoutSegmentMs = Map.of(TopicConfig.SEGMENT_BYTES_CONFIG, "52428800",
                TopicConfig.DELETE_RETENTION_MS_CONFIG, "3600000");
        assertEquals(Map.of(QuotaTopology.STATE_STORE, withoutSegmentMs, QuotaTopology.REQUEST_IDS_STORE, withoutSegmentMs),
                batchChangelogConfigs(Map.of(StreamsConfig.topicPrefix(TopicConfig.SEGMENT_MS_CONFIG), "3600000")));
        assertEquals(Map.of(), BatchChangelogConfig.of(new EnforcerConfig(Map.of(
                StreamsConfig.topicPrefix(TopicConfig.SEGMENT_MS_CONFIG), "3600000",
                StreamsConfig.topicPrefix(TopicConfig.SEGMENT_BYTES_CONFIG), "1073741824",
                StreamsConfig.topicPrefix(TopicConfig.DELETE_RETENTION_MS_CONFIG), "86400000")).streamsProperties()));
    }

    @Test
    void theOtherChangelogsKeepKafkaStreamsDefaults() {
        QuotaTopology topology = new QuotaTopology(new EnforcerConfig(Map.of()));
        for (StoreBuilder<?> builder : topology.quotaDecider(new CatalogChanges(), new CatalogChanges()).stores()) {
            if (!builder.name().equals(QuotaTopology.STATE_STORE) && !builder.name().equals(QuotaTopology.REQUEST_IDS_STORE)) {
                assertEquals(Map.of(), builder.logConfig(), builder.name());
            }
        }
    }

    /** The changelog settings of the batch stores the deciding processor declares, by store. */
    private static Map<String, Map<String, String>> batchChangelogConfigs(Map<String, String> settings) {
        QuotaTopology topology = new QuotaTopology(new EnforcerConfig(new HashMap<>(settings)));
        return topology.quotaDecider(new CatalogChanges(), new CatalogChanges()).stores().stream()
                .filter(builder -> builder.name().equals(QuotaTopology.STATE_STORE)
                        || builder.name().equals(QuotaTopology.REQUEST_IDS_STORE))
                .filter(StoreBuilder::loggingEnabled)
                .collect(Collectors.toMap(StoreBuilder::name, StoreBuilder::logConfig));
    }
}

package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.quotaenforcer.runtime.Enforcer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The changelogs written in batches are created with segments that roll every ten minutes (or 50 MiB)
 * and tombstones kept an hour, so the broker's log cleaner can drop retired batches instead of every
 * restore reading them, and an operator's settings for all internal topics still apply.
 */
@ExtendWith(KafkaBroker.class)
class BatchChangelogSegmentsIT {

    private static final List<String> BATCH_CHANGELOGS = List.of("quota-state-changelog", "request-id-batches-changelog");

    @TempDir
    Path stateDir;

    @Test
    void theKeyEntryAndRequestIdChangelogsAreCreatedWithTenMinuteSegmentsAndAnHourOfTombstones(TestCluster cluster) throws Exception {
        try (Enforcer enforcer = cluster.startWithBasicPlan(2, stateDir, "k-1");
             Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            for (String changelog : BATCH_CHANGELOGS) {
                Config config = config(admin, cluster.applicationId() + "-" + changelog);
                assertEquals("600000", config.get(TopicConfig.SEGMENT_MS_CONFIG).value(), changelog);
                assertEquals("52428800", config.get(TopicConfig.SEGMENT_BYTES_CONFIG).value(), changelog);
                assertEquals("3600000", config.get(TopicConfig.DELETE_RETENTION_MS_CONFIG).value(), changelog);
                assertEquals("compact", config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value(), changelog);
            }
            Config watermark = config(admin, cluster.applicationId() + "-quota-watermark-changelog");
            assertNotEquals("600000", watermark.get(TopicConfig.SEGMENT_MS_CONFIG).value(),
                    "a changelog of a few records keeps the broker's segments");
        }
    }

    @Test
    void settingsGivenForEveryInternalTopicApplyToTheBatchChangelogsToo(TestCluster cluster) throws Exception {
        cluster.createTopics(2);
        try (Enforcer enforcer = cluster.startEnforcer("a", stateDir,
                Map.of(StreamsConfig.topicPrefix(TopicConfig.SEGMENT_MS_CONFIG), "3600000"));
             Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            for (String changelog : BATCH_CHANGELOGS) {
                Config config = config(admin, cluster.applicationId() + "-" + changelog);
                assertEquals("3600000", config.get(TopicConfig.SEGMENT_MS_CONFIG).value(), changelog);
                assertEquals("52428800", config.get(TopicConfig.SEGMENT_BYTES_CONFIG).value(), changelog);
            }
        }
    }

    private static Config config(Admin admin, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
    }
}

package dev.quotaenforcer.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The single-node broker the run command, the tests and the benchmark start, as a client sees its settings. */
class EmbeddedKafkaIT {

    @Test
    void brokerRetriesAddingAPartitionToATransactionAfterOneMillisecondNotKafkasTwenty(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, EmbeddedKafka.freePort(), EmbeddedKafka.freePort());
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            ConfigEntry entry = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS).get(broker)
                    .get(EmbeddedKafka.ADD_PARTITIONS_RETRY_BACKOFF_MS_CONFIG);

            assertEquals("1", entry.value());
            assertEquals(ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG, entry.source());
        }
    }
}

package dev.quotaenforcer.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.it.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The startup check reads a real cluster's transaction.version: a warning on version 1, none once it is upgraded to 2. */
class TransactionsVersionIT {

    @Test
    void clusterOnTransactionVersion1IsWarnedAboutUntilUpgradedTo2(@TempDir Path dir) throws Exception {
        int port = EmbeddedKafka.freePort();
        Map<String, Object> client = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port);
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, EmbeddedKafka.serverProperties(dir, port, EmbeddedKafka.freePort()),
                List.of("--feature", TransactionsVersion.FEATURE + "=1"), client);
             Admin admin = Admin.create(client)) {
            String warning = TransactionsVersion.warnUnlessV2(admin, kafka.bootstrapServers()).orElseThrow();
            assertTrue(warning.contains("transaction.version is 1"), warning);

            admin.updateFeatures(Map.of(TransactionsVersion.FEATURE, new FeatureUpdate((short) 2, FeatureUpdate.UpgradeType.UPGRADE)),
                    new UpdateFeaturesOptions()).all().get(30, TimeUnit.SECONDS);
            TestCluster.awaitCondition("no warning once transaction.version is 2", () -> {
                try {
                    return TransactionsVersion.warnUnlessV2(admin, kafka.bootstrapServers()).isEmpty();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }, Duration.ofSeconds(30));
        }
    }
}

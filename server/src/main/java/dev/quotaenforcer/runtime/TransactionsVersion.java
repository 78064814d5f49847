package dev.quotaenforcer.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns at startup when the cluster does not run transactions v2 (KIP-890): without it a commit or
 * abort delayed in the network can end a later transaction of the same producer, which Jepsen
 * reproduced in Kafka as lost writes and aborted reads. The enforcer's exactly-once rests on those
 * transactions, so the warning names the feature and how to finalize it.
 */
final class TransactionsVersion {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionsVersion.class);
    static final String FEATURE = "transaction.version";
    private static final short REQUIRED = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private TransactionsVersion() {
    }

    /** Logs a warning unless the cluster's finalized {@code transaction.version} is 2 or more; returns what it logged. */
    static Optional<String> warnUnlessV2(Admin admin, String bootstrapServers) throws InterruptedException {
        Optional<String> warning;
        try {
            Map<String, FinalizedVersionRange> finalized = admin.describeFeatures().featureMetadata()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).finalizedFeatures();
            warning = warning(finalized, bootstrapServers);
        } catch (ExecutionException | TimeoutException e) {
            warning = Optional.of("Cannot read the cluster's finalized features to check that it runs transactions v2 ("
                    + FEATURE + " >= " + REQUIRED + "): " + (e.getCause() == null ? e : e.getCause().getMessage()));
        }
        warning.ifPresent(LOG::warn);
        return warning;
    }

    /** The warning for these finalized features, or empty when they include {@code transaction.version} 2 or more. */
    static Optional<String> warning(Map<String, FinalizedVersionRange> finalized, String bootstrapServers) {
        FinalizedVersionRange version = finalized.get(FEATURE);
        if (version != null && version.maxVersionLevel() >= REQUIRED) {
            return Optional.empty();
        }
        return Optional.of("The cluster's finalized " + FEATURE + " is " + (version == null ? "not set (0)" : version.maxVersionLevel())
                + ", below " + REQUIRED + ": its transactions lack KIP-890's server-side defence. Without it a commit or "
                + "abort delayed in the network can end a later transaction of the same producer (Jepsen reproduced lost "
                + "writes and aborted reads this way), which could lose or repeat the enforcer's decisions and counts. "
                + "With every broker on Kafka 4.0 or later, finalize it with: kafka-features.sh "
                + "--bootstrap-server " + bootstrapServers + " upgrade --feature " + FEATURE + "=" + REQUIRED);
    }
}

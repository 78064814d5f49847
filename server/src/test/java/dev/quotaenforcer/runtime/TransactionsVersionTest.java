package dev.quotaenforcer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.junit.jupiter.api.Test;

/** The transactions v2 warning: given below version 2 or without the feature, naming it and how to finalize it. */
class TransactionsVersionTest {

    @Test
    void noWarningAtTransactionVersion2() {
        assertEquals(Optional.empty(), TransactionsVersion.warning(
                Map.of("transaction.version", new FinalizedVersionRange((short) 2, (short) 2)), "kafka-1:9092"));
    }

    @Test
    void warningAtTransactionVersion1NamesTheFeatureAndTheUpgrade() {
        String warning = TransactionsVersion.warning(
                Map.of("transaction.version", new FinalizedVersionRange((short) 1, (short) 1)), "kafka-1:9092").orElseThrow();
        assertTrue(warning.contains("transaction.version is 1"), warning);
        assertTrue(warning.contains("kafka-features.sh --bootstrap-server kafka-1:9092 upgrade --feature transaction.version=2"),
                warning);
    }

    @Test
    void warningWhenTheClusterHasNoTransactionVersion() {
        String warning = TransactionsVersion.warning(Map.of(), "kafka-1:9092").orElseThrow();
        assertTrue(warning.contains("transaction.version is not set (0)"), warning);
    }
}

package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static dev.quotaenforcer.topology.EnforcerDriver.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests that do not sit on their key's partition go through the repartition topic; the rest go
 * straight to the decider. TopologyTestDriver delivers every record on partition 0, so with four
 * partitions configured a key that murmur2-hashes elsewhere plays a record placed by another
 * client's partitioner.
 */
class RequestRoutingTest {

    static final String REPARTITION_TOPIC = "quota-enforcer-test-" + Topics.REKEYED_REQUESTS + "-repartition";
    static final String PLAN = """
            {"id": "small", "quota": {"name": "hourly", "limit": 5, "window": "PT1H"}}""";

    @TempDir
    Path stateDir;
    EnforcerDriver enforcer;
    String onPartitionZero;
    String elsewhere;

    @BeforeEach
    void start() {
        enforcer = new EnforcerDriver(stateDir, Map.of(EnforcerConfig.REQUEST_PARTITIONS_CONFIG, 4));
        KeyPlacement placement = new KeyPlacement(4);
        onPartitionZero = keyOn(placement, true);
        elsewhere = keyOn(placement, false);
        enforcer.plan("small", PLAN);
        enforcer.assign(onPartitionZero, "small");
        enforcer.assign(elsewhere, "small");
    }

    @AfterEach
    void stop() {
        enforcer.close();
    }

    private static String keyOn(KeyPlacement placement, boolean partitionZero) {
        for (int i = 0; ; i++) {
            String key = "key-" + i;
            if ((placement.partitionOf(bytes(key)) == 0) == partitionZero) {
                return key;
            }
        }
    }

    @Test
    void correctlyPlacedRecordSkipsTheRepartitionTopic() {
        assertTrue(enforcer.decide(onPartitionZero, "r-1", at(0, 1)).allowed());

        assertFalse(enforcer.driver.producedTopicNames().contains(REPARTITION_TOPIC));
    }

    @Test
    void recordOnTheWrongPartitionIsRoutedThroughTheRepartitionTopic() {
        enforcer.send(elsewhere, "r-1", at(0, 1));

        assertTrue(enforcer.driver.producedTopicNames().contains(REPARTITION_TOPIC));
    }

    @Test
    void aReKeyedRecordBackOnAPartitionThatIsNotItsKeysIsDeadLetteredNotCounted() {
        // The test driver's topics have one partition, so the record comes back on partition 0, not its key's:
        // as a record written straight onto the repartition topic by someone else would.
        enforcer.send(elsewhere, "r-1", at(0, 1));

        assertEquals(List.of(), enforcer.decisions());
        List<TestRecord<byte[], byte[]>> letters = enforcer.deadLetters();
        assertEquals(1, letters.size());
        assertEquals(RekeyedInputCheck.INVALID_REKEYED, EnforcerDriver.header(letters.get(0).headers(), DeadLetter.ERROR));
        assertEquals("apiKey " + elsewhere + " is not this record's key, or this is not its key's partition",
                EnforcerDriver.header(letters.get(0).headers(), DeadLetter.REASON));
    }

    @Test
    void recordWithoutAKeyIsReKeyedByItsApiKey() {
        enforcer.sendRaw(null, "{\"requestId\": \"r-1\", \"apiKey\": \"" + onPartitionZero + "\"}", at(0, 1));

        List<Decision> decisions = enforcer.decisionRecords().stream().map(r -> {
            assertEquals(onPartitionZero, r.key());
            return r.value();
        }).toList();
        assertEquals(1, decisions.size());
        assertTrue(decisions.get(0).allowed());
        assertTrue(enforcer.driver.producedTopicNames().contains(REPARTITION_TOPIC));
    }

    @Test
    void recordWhoseKeyDiffersFromItsApiKeyIsCountedUnderTheApiKey() {
        enforcer.sendRaw("gateway-7", "{\"requestId\": \"r-1\", \"apiKey\": \"" + onPartitionZero + "\"}", at(0, 1));

        Decision decision = enforcer.decisions().get(0);
        assertEquals(onPartitionZero, decision.apiKey());
        assertEquals(4, decision.remaining());
    }

    @Test
    void aKeysCountIsNotSplitBetweenDirectAndReKeyedRecords() {
        for (int i = 0; i < 4; i++) {
            enforcer.send(onPartitionZero, "direct-" + i, at(0, i));
            enforcer.sendRaw("other-" + i, "{\"requestId\": \"rekeyed-" + i + "\", \"apiKey\": \"" + onPartitionZero + "\"}",
                    at(0, i));
        }

        List<Decision> decisions = enforcer.decisions();
        assertEquals(8, decisions.size());
        assertEquals(5, decisions.stream().filter(Decision::allowed).count(), "one quota of 5 for both paths");
    }
}

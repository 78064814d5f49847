package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which threads' samples the throughput profile counts. */
class StreamThreadProfileTest {

    @Test
    void countsTheApplicationsStreamThreadsNotTheirProducersNetworkThreadsNorAnotherApplications() {
        assertTrue(StreamThreadProfile.isStreamThread("bench-enforcer-exactly-once-v2-e09c-StreamThread-1",
                "bench-enforcer-exactly-once-v2"));
        assertFalse(StreamThreadProfile.isStreamThread(
                "kafka-producer-network-thread | bench-enforcer-exactly-once-v2-e09c-StreamThread-1-producer",
                "bench-enforcer-exactly-once-v2"));
        assertFalse(StreamThreadProfile.isStreamThread("bench-copy-exactly-once-v2-20da-StreamThread-1",
                "bench-enforcer-exactly-once-v2"));
        assertFalse(StreamThreadProfile.isStreamThread(null, "bench-enforcer-exactly-once-v2"));
    }
}

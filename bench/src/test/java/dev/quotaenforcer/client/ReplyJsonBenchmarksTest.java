package dev.quotaenforcer.client;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import org.junit.jupiter.api.Test;

/** The benchmarked readers read the same decision, so their figures compare like for like. */
class ReplyJsonBenchmarksTest {

    @Test
    void readersAgreeOnTheBenchmarkedDecision() {
        assertDoesNotThrow(new ReplyJsonBenchmarks.Readers()::setUp);
    }
}

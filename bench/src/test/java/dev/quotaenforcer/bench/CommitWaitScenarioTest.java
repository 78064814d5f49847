package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class CommitWaitScenarioTest {

    @Test
    void reportsEachBrokerSettingAndDelayAsARowAndItsPercentilesAsFigures() {
        Histogram embedded = new Histogram(3);
        for (long micros = 1_000; micros <= 100_000; micros += 1_000) {
            embedded.recordValue(micros);
        }
        Histogram kafkaDefault = new Histogram(3);
        kafkaDefault.recordValueWithCount(22_000, 100);

        ScenarioResult result = new CommitWaitScenario().result(List.of(
                new CommitWaitScenario.Measured(1, 0, embedded),
                new CommitWaitScenario.Measured(CommitWaitScenario.KAFKA_DEFAULT_BACKOFF_MS, 0, kafkaDefault)), 50);

        List<List<String>> rows = result.tables().get(0).rows();
        assertEquals(List.of("1 (embedded broker)", "0", "100"), rows.get(0).subList(0, 3));
        assertMilliseconds(List.of(50.0, 90.0, 99.0, 100.0), rows.get(0).subList(3, 7));
        assertEquals(List.of("20 (Kafka's default)", "0", "100"), rows.get(1).subList(0, 3));
        assertMilliseconds(List.of(22.0, 22.0, 22.0, 22.0), rows.get(1).subList(3, 7));
        assertEquals(99.0, result.figures().get("backoff1ms.sentAfter0ms.p99Ms").value(), 0.1);
        assertEquals(22.0, result.figures().get("backoff20ms.sentAfter0ms.p50Ms").value(), 0.1);
    }

    /** The histogram keeps three significant digits, so a printed percentile is within 0.1 ms of the value recorded. */
    private static void assertMilliseconds(List<Double> expected, List<String> printed) {
        assertEquals(expected.size(), printed.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), Double.parseDouble(printed.get(i)), 0.1, printed.toString());
        }
    }
}

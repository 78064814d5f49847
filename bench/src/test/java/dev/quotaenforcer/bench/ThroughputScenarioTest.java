package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThroughputScenarioTest {

    private static ThroughputScenario.Run run(long records, double seconds, double cpuSeconds, long written) {
        return new ThroughputScenario.Run("byte-copy", "exactly_once_v2", records, seconds, cpuSeconds,
                Map.of("copy", written), Map.of(), new ThreadTimes(0, 0, 0, 0, 0, 0));
    }

    @Test
    void poolsTheByteCopysRunsAsOneRunOfAllTheirRecordsNotAnAverageOfTheirRates() {
        // 1,000 records in 1 s and 1,000 in 3 s: 500/s over both, where the mean of the rates would say 667.
        ThroughputScenario.Ceiling ceiling = ThroughputScenario.Ceiling.pooled(run(1_000, 1, 0.002, 1_000),
                run(1_000, 3, 0.004, 1_200));

        assertEquals(500, ceiling.perSecond(), 1e-9);
        assertEquals(3, ceiling.cpuMicrosPerRecord(), 1e-9);
        assertEquals(1.1, ceiling.writtenPerRecord(), 1e-9);
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class AccuracyScenarioTest {

    @Test
    void reportsTheSharesBesideCloudflareAndExplainsThemFromTheTally() {
        long[] times = new long[160];
        Arrays.fill(times, 0, 100, BurstyTrace.START + 59_900);
        Arrays.fill(times, 100, 160, BurstyTrace.START + 90_000);
        AccuracyTally tally = new AccuracyTally(100, Duration.ofMinutes(1));
        tally.replay(times);

        ScenarioResult result = new AccuracyScenario().result(tally, Duration.ofMinutes(2));

        assertEquals(50 / 160.0, result.figures().get("misjudgedShare").value(), 1e-12);
        assertEquals(0.003 / 100, result.figures().get("cloudflareShare").value(), 1e-15);
        assertEquals(150, result.figures().get("counterMaxWindow").value());
        assertTrue(result.notes().get(0).startsWith("Ours: 31.2500% of requests misjudged; Cloudflare reports 0.0030%"),
                result.notes().get(0));
        assertTrue(result.notes().stream().anyMatch(note -> note.contains("at most 150 requests in one window against a "
                + "limit of 100")), result.notes().toString());
        assertEquals(2, result.charts().size());
        assertEquals(4, result.tables().size());
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AccuracyScenarioTest {

    @Test
    void reportsTheSharesBesideCloudflareAndExplainsThemFromTheTally() {
        ScenarioResult result = new AccuracyScenario().result(AccuracyTallyTest.endOfWindowBurst(), Duration.ofMinutes(2));

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

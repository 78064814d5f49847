package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Decisions are counted from the enforcer's Prometheus text, summed over every label. */
class PrometheusTextTest {

    private static final String METRICS = """
            # HELP quota_decisions_total Decisions made, by plan and reason
            # TYPE quota_decisions_total counter
            quota_decisions_total{plan="state",reason="ALLOWED"} 99990.0
            quota_decisions_total{plan="state",reason="RATE_LIMITED"} 10.0
            quota_decisions_totally_other 5.0
            process_uptime_seconds 12.5
            """;

    @Test
    void shouldSumEverySampleOfTheMetric() {
        assertEquals(100_000.0, PrometheusText.sum(METRICS, "quota_decisions_total"));
        assertEquals(12.5, PrometheusText.sum(METRICS, "process_uptime_seconds"));
        assertEquals(0.0, PrometheusText.sum(METRICS, "absent_total"));
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Decisions are counted from the enforcer's Prometheus text, summed over every label or by one. */
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

    @Test
    void shouldSumTheSamplesByTheValueOfOneLabel() {
        String metrics = METRICS + """
                quota_decisions_total{plan="none",reason="UNKNOWN_API_KEY"} 7.0
                quota_decisions_total{plan="a,reason=\\"OK\\"",reason="OK"} 1.0
                quota_decisions_total 2.0
                """;

        assertEquals(Map.of("ALLOWED", 99_990.0, "RATE_LIMITED", 10.0, "UNKNOWN_API_KEY", 7.0, "OK", 1.0),
                PrometheusText.sumBy(metrics, "quota_decisions_total", "reason"));
        assertEquals(Map.of("state", 100_000.0, "none", 7.0, "a,reason=\\\"OK\\\"", 1.0),
                PrometheusText.sumBy(metrics, "quota_decisions_total", "plan"));
        assertEquals(Map.of(), PrometheusText.sumBy(metrics, "quota_decisions_total", "policy"));
    }
}

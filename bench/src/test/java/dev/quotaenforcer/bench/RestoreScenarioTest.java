package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RestoreScenarioTest {

    @Test
    void reportsEachSetupsChangelogsInMiBAndRecordsAndItsTimeToReady() {
        List<RestoreScenario.Measured> measured = List.of(
                new RestoreScenario.Measured(RestoreScenario.SETUPS.get(0), 3_600_000, List.of(27_154_432L, 26_916_864L),
                        List.of(97_243L, 91_780L), 5.437),
                new RestoreScenario.Measured(RestoreScenario.SETUPS.get(1), 3_600_000, List.of(76_101_632L, 79_649_792L),
                        List.of(153_350L, 151_288L), 10.649));

        ScenarioResult result = new RestoreScenario().result(measured, Duration.ofMinutes(11), 5_000);

        assertEquals(List.of(
                        List.of("the enforcer's batch changelog settings", "3600000", "25.9", "97243", "25.7", "91780", "5.44"),
                        List.of("Kafka's topic settings", "3600000", "72.6", "153350", "76.0", "151288", "10.6")),
                result.tables().get(0).rows());
        assertEquals("after 660 s at 5000 requests/s over 100000 keys, exactly-once", result.tables().get(0).title());
        assertEquals(76_101_632 / (1024.0 * 1024), result.figures().get("kafkaSettings.quota-state-changelog.MiB").value(), 1e-9);
        assertEquals(91_780, result.figures().get("enforcerSettings.request-id-batches-changelog.records").value());
        assertEquals(5.437, result.figures().get("enforcerSettings.readyAfterWipeSeconds").value());
    }

    @Test
    void runsOnlyWhenNamed() {
        assertFalse(new RestoreScenario().inFullRun());
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {

    @TempDir
    Path dir;

    private String refused(String setting) {
        return refused("--set", setting);
    }

    private String refused(String option, String value) {
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new BenchCommand()).setErr(new PrintWriter(err));
        int status = command.execute("--quick", "--scenario", "accuracy", option, value,
                "--out", dir.resolve("out").toString());
        assertNotEquals(0, status, err.toString());
        assertFalse(Files.exists(dir.resolve("out")), "no scenario ran");
        return err.toString();
    }

    @Test
    void refusesAMisspeltEnforcerSettingBeforeRunningAnyScenario() {
        String err = refused("quota.usage.intervall.ms=500");
        assertTrue(err.contains("quota.usage.intervall.ms"), err);
    }

    @Test
    void refusesAKafkaStreamsSettingWithAnInvalidValueBeforeRunningAnyScenario() {
        String err = refused("statestore.cache.max.bytes=lots");
        assertTrue(err.contains("statestore.cache.max.bytes") && err.contains("lots"), err);
    }

    @Test
    void refusesALatencySetupOrLoadTheScenarioHasNotBeforeRunningAnyScenario() {
        String setup = refused("--latency-setups", "alos,echo-alls");
        assertTrue(setup.contains("echo-alls") && setup.contains("echo-alos"), setup);
        String load = refused("--latency-loads", "4000");
        assertTrue(load.contains("4000") && load.contains("5000"), load);
        String rounds = refused("--latency-rounds", "0");
        assertTrue(rounds.contains("rounds"), rounds);
    }
}

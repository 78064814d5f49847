package dev.quotaenforcer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings from file, environment and flags: precedence, formats, and errors that say where a value came from. */
class SettingsTest {

    @TempDir
    Path dir;

    private Path write(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    @Test
    void everySettingOfLowerCaseLettersDigitsAndDotsHasAnEnvironmentVariableThatSetsIt() {
        for (String setting : List.of("quota.default.plan", "bootstrap.servers", "ssl.truststore.location", "a1.b2")) {
            String variable = Settings.environmentVariable(setting).orElseThrow();
            assertEquals(Map.of(setting, "x"), Settings.load(null, Map.of(variable, "x"), Map.of()).values(), variable);
        }
        assertEquals(Optional.of("QUOTA_ENFORCER_QUOTA_HTTP_PORT"), Settings.environmentVariable("quota.http.port"));
    }

    @Test
    void aSettingNoVariableCanSpellHasNone() {
        for (String setting : List.of("my_setting", "Upper.case", "with-dash")) {
            assertEquals(Optional.empty(), Settings.environmentVariable(setting), setting);
        }
    }

    @Test
    void environmentOverridesFileAndFlagsOverrideBoth() throws IOException {
        Path file = write("enforcer.properties", """
                bootstrap.servers=file:9092
                quota.default.plan=free
                application.id=from-file
                """);

        Settings settings = Settings.load(file,
                Map.of("QUOTA_ENFORCER_BOOTSTRAP_SERVERS", "env:9092", "QUOTA_ENFORCER_APPLICATION_ID", "from-env",
                        "PATH", "/usr/bin"),
                Map.of("application.id", "from-flag"));

        assertEquals("env:9092", settings.values().get("bootstrap.servers"));
        assertEquals("from-flag", settings.values().get("application.id"));
        assertEquals("free", settings.values().get("quota.default.plan"));
        assertEquals(3, settings.values().size(), "unrelated environment variables are ignored");
    }

    @Test
    void yamlFileMayNestOrNot() throws IOException {
        Path file = write("enforcer.yaml", """
                bootstrap:
                  servers: localhost:9092
                quota.default.plan: pro
                quota:
                  request:
                    max:
                      cost: 500
                """);

        Settings settings = Settings.load(file, Map.of(), Map.of());

        assertEquals(Map.of("bootstrap.servers", "localhost:9092", "quota.default.plan", "pro",
                "quota.request.max.cost", "500"), settings.values());
        assertEquals(500, settings.validate().requestMaxCost());
    }

    @Test
    void badValueNamesTheSettingTheValueAndTheEnvironmentVariableItCameFrom() {
        Settings settings = Settings.load(null,
                Map.of("QUOTA_ENFORCER_BOOTSTRAP_SERVERS", "localhost:9092", "QUOTA_ENFORCER_QUOTA_REQUEST_MAX_COST", "0"),
                Map.of());

        ConfigException e = assertThrows(ConfigException.class, settings::validate);

        assertTrue(e.getMessage().contains("quota.request.max.cost"), e.getMessage());
        assertTrue(e.getMessage().contains("0"), e.getMessage());
        assertTrue(e.getMessage().contains("environment variable QUOTA_ENFORCER_QUOTA_REQUEST_MAX_COST"), e.getMessage());
    }

    @Test
    void badKafkaSettingFromTheFileNamesTheFile() throws IOException {
        Path file = write("enforcer.properties", """
                bootstrap.servers=localhost:9092
                processing.guarantee=sometimes
                """);

        ConfigException e = assertThrows(ConfigException.class, () -> Settings.load(file, Map.of(), Map.of()).validate());

        assertTrue(e.getMessage().contains("processing.guarantee"), e.getMessage());
        assertTrue(e.getMessage().contains("sometimes"), e.getMessage());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    void unreadableFileIsNamed() {
        Path missing = dir.resolve("missing.properties");

        ConfigException e = assertThrows(ConfigException.class, () -> Settings.load(missing, Map.of(), Map.of()));

        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    }
}

package dev.quotaenforcer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.RepositoryFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.junit.jupiter.api.Test;

/** The configuration reference: docs/configuration.md is what the generator writes now, and how it writes a setting. */
class ConfigReferenceTest {

    private static final Path PAGE = RepositoryFiles.path("docs", "configuration.md");

    private static String render(ConfigDef definition) {
        return ConfigReference.markdown(definition, new Properties());
    }

    @Test
    void docsConfigurationMdIsWhatTheGeneratorWritesFromTheConfigDef() throws IOException {
        assertTrue(Files.exists(PAGE), PAGE + " is missing; generate it with: " + ConfigReference.REGENERATE);
        assertEquals(ConfigReference.enforcer(), Files.readString(PAGE),
                PAGE + " differs from the ConfigDef in EnforcerConfig; regenerate it with: " + ConfigReference.REGENERATE);
    }

    @Test
    void everyEnforcerSettingHasASectionWithItsEnvironmentVariable() {
        String page = ConfigReference.enforcer();
        for (String name : EnforcerConfig.definition().names()) {
            assertTrue(page.contains("### `" + name + "`\n"), name);
            assertTrue(page.contains("`" + Settings.environmentVariable(name).orElseThrow() + "`"), name);
        }
        assertTrue(page.contains("- `application.id=quota-enforcer`\n"), "the Kafka Streams defaults are listed");
    }

    @Test
    void aSettingIsWrittenWithTypeDefaultValidValuesImportanceAndDocumentation() {
        String page = render(new ConfigDef().define("quota.size", Type.INT, 8, Range.between(1, 64), Importance.HIGH,
                "How many."));
        assertTrue(page.contains("""
                ### `quota.size`

                How many.

                - Type: int
                - Default: `8`
                - Valid values: [1,...,64]
                - Importance: high
                - Environment variable: `QUOTA_ENFORCER_QUOTA_SIZE`
                """), page);
    }

    @Test
    void aPasswordsDefaultIsNeverPrinted() {
        String page = render(new ConfigDef()
                .define("quota.secret", Type.PASSWORD, "hunter2", Importance.HIGH, "A secret.")
                .define("quota.other.secret", Type.PASSWORD, null, Importance.HIGH, "Another."));
        assertFalse(page.contains("hunter2"), page);
        assertTrue(page.contains("- Default: set (hidden)\n"), page);
        assertTrue(page.contains("- Default: none\n"), page);
    }

    @Test
    void aSettingWithoutDefaultIsRequired() {
        String page = render(new ConfigDef().define("quota.needed", Type.STRING, Importance.HIGH, "Must be given."));
        assertTrue(page.contains("- Default: required\n"), page);
    }

    @Test
    void emptyAndListDefaultsAndBooleansAreSpelledOut() {
        String page = render(new ConfigDef()
                .define("quota.empty", Type.STRING, "", Importance.LOW, "Empty.")
                .define("quota.hosts", Type.LIST, "a,b", Importance.LOW, "Hosts.")
                .define("quota.flag", Type.BOOLEAN, true, Importance.LOW, "Flag."));
        assertTrue(page.contains("- Default: empty\n- Valid values: any\n"), page);
        assertTrue(page.contains("- Default: `a,b`\n"), page);
        assertTrue(page.contains("- Default: `true`\n- Valid values: `true`, `false`\n"), page);
    }

    @Test
    void htmlInTheDocumentationIsEscapedSoMarkdownShowsIt() {
        String page = render(new ConfigDef().define("quota.topic", Type.STRING, "x", Importance.LOW,
                "Topics <prefix>.requests & co."));
        assertTrue(page.contains("Topics &lt;prefix&gt;.requests &amp; co."), page);
    }

    @Test
    void aSettingNoVariableCanSetSaysSo() {
        String page = render(new ConfigDef().define("quota.odd_name", Type.STRING, "x", Importance.LOW, "Odd."));
        assertTrue(page.contains("- Environment variable: none\n"), page);
    }

    @Test
    void groupedSettingsComeUnderTheirGroupsInTheirOrder() {
        ConfigDef definition = new ConfigDef()
                .define("quota.loose", Type.INT, 1, Importance.LOW, "Loose.")
                .define("quota.http.port", Type.INT, 1, null, Importance.LOW, "Port.", "HTTP", 2, Width.SHORT, "port")
                .define("quota.topic.prefix", Type.STRING, "q", null, Importance.LOW, "Prefix.", "Topics", 1, Width.SHORT,
                        "prefix")
                .define("quota.http.host", Type.STRING, "h", null, Importance.LOW, "Host.", "HTTP", 1, Width.SHORT, "host");
        String page = render(definition);
        int loose = page.indexOf("## Settings\n\n### `quota.loose`");
        int http = page.indexOf("## HTTP\n\n### `quota.http.host`");
        int port = page.indexOf("### `quota.http.port`");
        int topics = page.indexOf("## Topics\n\n### `quota.topic.prefix`");
        assertTrue(loose >= 0 && http > loose && port > http && topics > port, page);
    }
}

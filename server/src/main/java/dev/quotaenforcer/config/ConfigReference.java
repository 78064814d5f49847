package dev.quotaenforcer.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.streams.StreamsConfig;

/** Renders the Markdown configuration reference (docs/configuration.md) from a ConfigDef. */
public final class ConfigReference {

    /** The command that writes docs/configuration.md, for the page itself and for the test that checks it. */
    public static final String REGENERATE = "mvn -q -DskipTests package && "
            + "java -jar server/target/quota-enforcer.jar config reference --output docs/configuration.md";

    private static final String UNGROUPED = "Settings";

    private ConfigReference() {
    }

    /** The reference of the enforcer's own settings, with how settings are given and the Kafka Streams defaults. */
    public static String enforcer() {
        return markdown(EnforcerConfig.definition(), new EnforcerConfig(Map.of()).streamsProperties());
    }

    /**
     * The reference of {@code definition}: how settings are given, then a section per setting, under a
     * heading per group when the definition groups them, then {@code streamsDefaults}.
     */
    public static String markdown(ConfigDef definition, Properties streamsDefaults) {
        StringBuilder page = new StringBuilder();
        page.append("# Configuration reference\n\n")
                .append("<!-- Generated from EnforcerConfig's ConfigDef by `config reference`; checked by ")
                .append("ConfigReferenceTest. Do not edit: change the ConfigDef, then run\n     ")
                .append(REGENERATE).append(" -->\n\n");
        page.append("""
                ## How settings are given

                Every command takes its settings from three places, each overriding the one before:

                1. a settings file, `--config FILE` (`-c`): `.properties`, or `.yaml`/`.yml`, where keys may nest \
                (`bootstrap: {servers: kafka-1:9092}` is `bootstrap.servers`) and a list is joined with commas;
                2. environment variables `%sNAME`, NAME being the setting upper-cased with dots as underscores: \
                `%s` sets `bootstrap.servers` (a setting with an underscore, a dash or an upper-case letter \
                has no variable);
                3. flags: `--bootstrap-servers HOST:PORT` (`-b`) for `bootstrap.servers`, and `--set KEY=VALUE` \
                (`-s`, repeatable) for any setting.

                Everything is validated before anything starts: a bad value stops the command with a message \
                naming the setting, the value and where it came from (file, environment variable or command line), \
                and a `quota.*` setting that is not one of those below is an error, not ignored. Every other setting \
                goes to Kafka Streams and, through it, to every client it creates; the operator commands pass the \
                client settings (security included) to their own admin, producer and consumer.

                """.formatted(Settings.ENV_PREFIX, Settings.environmentVariable("bootstrap.servers").orElseThrow()));
        Map<String, List<ConfigKey>> groups = groups(definition);
        groups.forEach((group, keys) -> {
            page.append("## ").append(group).append("\n\n");
            keys.forEach(key -> section(page, key));
        });
        page.append("## Kafka Streams defaults\n\n")
                .append("The enforcer sets these Kafka Streams properties unless you set them yourself:\n\n");
        new TreeMap<>(streamsDefaults).forEach((name, value) ->
                page.append("- `").append(name).append("=").append(value).append("`\n"));
        for (String producerSetting : EnforcerConfig.PRODUCER_DEFAULTS.keySet()) {
            String prefixed = StreamsConfig.producerPrefix(producerSetting);
            if (streamsDefaults.containsKey(prefixed)) {
                page.append("\n`").append(prefixed).append("` also gives way to `").append(producerSetting)
                        .append("`, which sets it for every client.\n");
            }
        }
        return page.toString();
    }

    /** The settings by group in the definition's group order, ungrouped ones first; within a group, by its order. */
    private static Map<String, List<ConfigKey>> groups(ConfigDef definition) {
        Map<String, List<ConfigKey>> groups = new LinkedHashMap<>();
        List<ConfigKey> keys = definition.configKeys().values().stream().filter(key -> !key.internalConfig).toList();
        List<ConfigKey> ungrouped = keys.stream().filter(key -> key.group == null).toList();
        if (!ungrouped.isEmpty()) {
            groups.put(UNGROUPED, ungrouped);
        }
        for (String group : definition.groups()) {
            List<ConfigKey> inGroup = new ArrayList<>(keys.stream().filter(key -> group.equals(key.group)).toList());
            inGroup.sort(Comparator.comparingInt(key -> key.orderInGroup));
            groups.put(group, inGroup);
        }
        return groups;
    }

    private static void section(StringBuilder page, ConfigKey key) {
        page.append("### `").append(key.name).append("`\n\n")
                .append(escape(key.documentation == null ? "" : key.documentation.strip())).append("\n\n")
                .append("- Type: ").append(key.type.name().toLowerCase(Locale.ROOT)).append('\n')
                .append("- Default: ").append(defaultOf(key)).append('\n')
                .append("- Valid values: ").append(validValues(key)).append('\n')
                .append("- Importance: ").append(key.importance.name().toLowerCase(Locale.ROOT)).append('\n')
                .append("- Environment variable: ")
                .append(Settings.environmentVariable(key.name).map(variable -> "`" + variable + "`").orElse("none"))
                .append("\n\n");
    }

    private static String defaultOf(ConfigKey key) {
        if (!key.hasDefault()) {
            return "required";
        }
        if (key.type == Type.PASSWORD) {
            // A secret's default is still a secret: say only whether there is one.
            return key.defaultValue == null ? "none" : "set (hidden)";
        }
        if (key.defaultValue == null) {
            return "none";
        }
        String value = ConfigDef.convertToString(key.defaultValue, key.type);
        return value.isEmpty() ? "empty" : "`" + value + "`";
    }

    private static String validValues(ConfigKey key) {
        if (key.validator != null) {
            return escape(key.validator.toString());
        }
        return key.type == Type.BOOLEAN ? "`true`, `false`" : "any";
    }

    /** Markdown passes HTML through, so the docs' {@code <prefix>} would vanish unescaped. */
    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}

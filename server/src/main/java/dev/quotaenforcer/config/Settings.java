package dev.quotaenforcer.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Settings gathered from a file (properties or YAML), then environment variables, then command-line
 * flags, each overriding the one before, with the origin of every value kept so that an error can
 * say where the bad value came from.
 *
 * <p>Environment variables {@code QUOTA_ENFORCER_<NAME>} set {@code <name>} with underscores read
 * as dots: {@code QUOTA_ENFORCER_BOOTSTRAP_SERVERS} sets {@code bootstrap.servers}.
 */
public final class Settings {

    public static final String ENV_PREFIX = "QUOTA_ENFORCER_";

    private final Map<String, Object> values = new LinkedHashMap<>();
    private final Map<String, String> origins = new LinkedHashMap<>();

    private Settings() {
    }

    /**
     * @param file  a {@code .properties}, {@code .yaml} or {@code .yml} file, or null for none
     * @param env   the environment, usually {@code System.getenv()}
     * @param flags settings given on the command line
     */
    public static Settings load(Path file, Map<String, String> env, Map<String, String> flags) {
        Settings settings = new Settings();
        if (file != null) {
            settings.putAll(readFile(file), file.toString());
        }
        env.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX) && name.length() > ENV_PREFIX.length()) {
                settings.put(settingOf(name), value, "environment variable " + name);
            }
        });
        settings.putAll(flags, "command line");
        return settings;
    }

    private static String settingOf(String environmentVariable) {
        return environmentVariable.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /**
     * The environment variable that sets {@code setting}, or empty when none can: a variable's name is read
     * lower-cased with underscores as dots, and shells take only letters, digits and underscores, so only a
     * setting of lower-case letters, digits and dots has one.
     */
    public static Optional<String> environmentVariable(String setting) {
        return setting.matches("[a-z0-9.]+")
                ? Optional.of(ENV_PREFIX + setting.toUpperCase(Locale.ROOT).replace('.', '_')) : Optional.empty();
    }

    private void putAll(Map<String, String> entries, String origin) {
        entries.forEach((key, value) -> put(key, value, origin));
    }

    private void put(String key, Object value, String origin) {
        values.put(key, value);
        origins.put(key, origin);
    }

    /** A copy with one more setting, as if given on the command line. */
    public Settings with(String key, Object value, String origin) {
        Settings copy = new Settings();
        copy.values.putAll(values);
        copy.origins.putAll(origins);
        copy.put(key, value, origin);
        return copy;
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    public Map<String, Object> values() {
        return Map.copyOf(values);
    }

    /**
     * Validates the enforcer's own settings and every Kafka Streams and client setting now, so a
     * bad value stops the start with a message naming the setting, the value and where it came from.
     */
    public EnforcerConfig validate() {
        try {
            EnforcerConfig config = new EnforcerConfig(values);
            new StreamsConfig(config.streamsProperties());
            return config;
        } catch (ConfigException e) {
            throw new ConfigException(e.getMessage() + originOf(e.getMessage()));
        }
    }

    private String originOf(String message) {
        return origins.entrySet().stream()
                .filter(entry -> message.contains(entry.getKey()))
                .map(entry -> " (" + entry.getKey() + " set by " + entry.getValue() + ")")
                .findFirst().orElse("");
    }

    private static Map<String, String> readFile(Path file) {
        String name = file.getFileName().toString();
        try {
            if (name.endsWith(".yaml") || name.endsWith(".yml")) {
                Map<String, String> flat = new LinkedHashMap<>();
                JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
                if (root != null && !root.isObject()) {
                    throw new ConfigException(file + ": must hold a mapping of settings");
                }
                flatten("", root, flat);
                return flat;
            }
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                properties.load(reader);
            }
            Map<String, String> entries = new LinkedHashMap<>();
            properties.stringPropertyNames().forEach(key -> entries.put(key, properties.getProperty(key)));
            return entries;
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot be read: " + e.getMessage());
        }
    }

    /** YAML may nest ({@code bootstrap: {servers: x}}) or not ({@code bootstrap.servers: x}); both mean the same. */
    private static void flatten(String prefix, JsonNode node, Map<String, String> into) {
        if (node == null || node.isNull()) {
            return;
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                flatten(prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey(), field.getValue(), into);
            }
        } else if (node.isArray()) {
            StringBuilder list = new StringBuilder();
            node.forEach(item -> list.append(list.length() == 0 ? "" : ",").append(item.asText()));
            into.put(prefix, list.toString());
        } else {
            into.put(prefix, node.asText());
        }
    }
}

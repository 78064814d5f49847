package dev.quotaenforcer.cli;

import dev.quotaenforcer.config.Settings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Option;

/** Where the cluster is and how to reach it: a settings file, the environment and flags, in that order. */
final class ClusterOptions {

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Settings file (.properties, .yaml or .yml): enforcer settings and any Kafka Streams or "
                    + "client setting. Environment variables QUOTA_ENFORCER_<NAME> override it, flags override both.")
    Path config;

    @Option(names = {"-b", "--bootstrap-servers"}, paramLabel = "HOST:PORT[,...]",
            description = "Kafka cluster to use (bootstrap.servers). For `run` and `demo`: when neither this, the "
                    + "file nor the environment names one, an embedded broker is started. Other commands default to "
                    + "localhost:9092, where `run` puts its embedded broker.")
    String bootstrapServers;

    @Option(names = {"-s", "--set"}, paramLabel = "KEY=VALUE",
            description = "Any setting, e.g. --set security.protocol=SASL_SSL --set quota.default.plan=free. Repeatable.")
    Map<String, String> set = new LinkedHashMap<>();

    /** The settings from file, environment and flags, not yet validated. */
    Settings settings() {
        Map<String, String> flags = new LinkedHashMap<>(set);
        if (bootstrapServers != null) {
            flags.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        }
        return Settings.load(config, System.getenv(), flags);
    }

    /** The settings, pointing at localhost:9092 when nothing names a cluster. */
    Settings settingsWithDefaultCluster() {
        Settings settings = settings();
        return settings.has(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) ? settings
                : settings.with(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092", "default");
    }
}

package dev.quotaenforcer;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.StreamsConfig;

/** The settings the enforcer reads: its own, and the Kafka Streams and client ones it passes through. */
final class KnownSettings {

    private KnownSettings() {
    }

    static Set<String> names() {
        Set<String> known = new TreeSet<>(EnforcerConfig.definition().names());
        known.addAll(StreamsConfig.configDef().names());
        known.addAll(ConsumerConfig.configNames());
        known.addAll(ProducerConfig.configNames());
        known.addAll(AdminClientConfig.configNames());
        return known;
    }

    /** Whether Kafka or the enforcer types the setting as a password (masked in logs, kept out of ConfigMaps). */
    static boolean isPassword(String name) {
        for (ConfigDef definition : new ConfigDef[] {EnforcerConfig.definition(), StreamsConfig.configDef(),
                ConsumerConfig.configDef(), ProducerConfig.configDef(), AdminClientConfig.configDef()}) {
            ConfigDef.ConfigKey key = definition.configKeys().get(name);
            if (key != null && key.type() == ConfigDef.Type.PASSWORD) {
                return true;
            }
        }
        return false;
    }

    /** The setting an environment variable sets, as the enforcer's {@link Settings} reads it, or null when it sets none. */
    static String fromEnvironment(String variable) {
        Set<String> set = Settings.load(null, Map.of(variable, "-"), Map.of()).values().keySet();
        return set.isEmpty() ? null : set.iterator().next();
    }
}

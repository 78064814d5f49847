package dev.quotaenforcer.admin;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The part of the enforcer's settings each kind of plain client understands: bootstrap servers and
 * every security setting reach the admin, producer and consumer the command line uses, while
 * Streams-only and enforcer settings stay out (and out of "unknown config" warnings).
 */
public final class ClientSettings {

    private ClientSettings() {
    }

    public static Map<String, Object> forAdmin(Map<String, Object> settings) {
        return only(settings, AdminClientConfig.configNames());
    }

    public static Map<String, Object> forProducer(Map<String, Object> settings) {
        return only(settings, ProducerConfig.configNames());
    }

    public static Map<String, Object> forConsumer(Map<String, Object> settings) {
        return only(settings, ConsumerConfig.configNames());
    }

    private static Map<String, Object> only(Map<String, Object> settings, Set<String> names) {
        Map<String, Object> selected = new HashMap<>();
        settings.forEach((key, value) -> {
            // ssl.* and sasl.* settings include ones loaded by plugins, which configNames() may not list.
            if (names.contains(key) || key.startsWith("ssl.") || key.startsWith("sasl.")) {
                selected.put(key, value);
            }
        });
        return selected;
    }
}

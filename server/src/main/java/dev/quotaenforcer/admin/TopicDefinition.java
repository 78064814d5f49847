package dev.quotaenforcer.admin;

import java.util.Map;
import java.util.TreeMap;

/** One topic as declared in {@code topics/topics.yaml}: name, partitions, replication and configs. */
public record TopicDefinition(String name, int partitions, short replicationFactor, Map<String, String> configs) {

    public TopicDefinition {
        configs = Map.copyOf(new TreeMap<>(configs));
    }
}

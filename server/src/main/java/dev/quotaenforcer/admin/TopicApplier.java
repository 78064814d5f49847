package dev.quotaenforcer.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Brings a cluster in line with the topic definitions: creates the missing topics and reports,
 * without changing them, existing ones whose partitions, replication or configs differ.
 */
public final class TopicApplier {

    /** What applying found: topics created, differences of existing ones, and topics already as declared. */
    public record Report(List<String> created, List<String> differences, List<String> unchanged) {

        public boolean created(String topic) {
            return created.contains(topic);
        }
    }

    private static final Duration VISIBLE_WAIT = Duration.ofSeconds(30);

    private TopicApplier() {
    }

    public static Report apply(Admin admin, TopicDefinitions definitions) throws InterruptedException {
        try {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = definitions.topics().stream()
                    .filter(t -> !existing.contains(t.name()))
                    .map(t -> new NewTopic(t.name(), t.partitions(), t.replicationFactor()).configs(t.configs()))
                    .toList();
            List<String> created = new ArrayList<>();
            for (NewTopic topic : missing) {
                try {
                    admin.createTopics(List.of(topic)).all().get();
                    created.add(topic.name());
                } catch (ExecutionException e) {
                    // Another instance starting at the same moment may have created it first.
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            awaitVisible(admin, created);
            List<TopicDefinition> present = definitions.topics().stream()
                    .filter(t -> existing.contains(t.name())).toList();
            List<String> differences = new ArrayList<>();
            List<String> unchanged = new ArrayList<>();
            if (!present.isEmpty()) {
                compare(admin, present, differences, unchanged);
            }
            return new Report(created, differences, unchanged);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot apply topic definitions: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * Waits until the brokers' metadata shows the topics just created, with a leader for every
     * partition: a Kafka Streams application started right after would otherwise find a source
     * topic missing, and stop.
     */
    private static void awaitVisible(Admin admin, List<String> topics) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + VISIBLE_WAIT.toNanos();
        while (!topics.isEmpty()) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get();
                if (described.values().stream().flatMap(d -> d.partitions().stream()).allMatch(p -> p.leader() != null)) {
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topics created but not visible within " + VISIBLE_WAIT + ": " + topics);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static void compare(Admin admin, List<TopicDefinition> present, List<String> differences, List<String> unchanged)
            throws ExecutionException, InterruptedException {
        Collection<String> names = present.stream().map(TopicDefinition::name).toList();
        Map<String, TopicDescription> descriptions = admin.describeTopics(names).allTopicNames().get();
        List<ConfigResource> resources = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
        for (TopicDefinition declared : present) {
            List<String> found = new ArrayList<>();
            TopicDescription actual = descriptions.get(declared.name());
            if (actual.partitions().size() != declared.partitions()) {
                found.add("partitions " + actual.partitions().size() + " (declared " + declared.partitions() + ")");
            }
            int replicas = actual.partitions().get(0).replicas().size();
            if (replicas != declared.replicationFactor()) {
                found.add("replication factor " + replicas + " (declared " + declared.replicationFactor() + ")");
            }
            Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, declared.name()));
            Map<String, String> actualConfigs = config.entries().stream()
                    .filter(entry -> entry.value() != null)
                    .collect(Collectors.toMap(ConfigEntry::name, ConfigEntry::value));
            declared.configs().forEach((name, value) -> {
                if (!value.equals(actualConfigs.get(name))) {
                    found.add(name + "=" + actualConfigs.get(name) + " (declared " + value + ")");
                }
            });
            if (found.isEmpty()) {
                unchanged.add(declared.name());
            } else {
                differences.add(declared.name() + ": " + String.join(", ", found));
            }
        }
    }
}

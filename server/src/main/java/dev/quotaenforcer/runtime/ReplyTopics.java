package dev.quotaenforcer.runtime;

import dev.quotaenforcer.admin.ClientSettings;
import dev.quotaenforcer.topology.Topics;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reply topics that exist on the cluster and accept the enforcer's largest record, refreshed in
 * the background, so the topology only replies to topics the producer will find (a missing one would
 * stall its stream thread) and the broker will take (under exactly-once a refused record aborts its
 * transaction, again on every retry: a gateway's own reply topic could stop the task).
 */
final class ReplyTopics implements Predicate<String>, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyTopics.class);
    static final Duration REFRESH = Duration.ofSeconds(10);

    private final Admin admin;
    private final String prefix;
    private final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "quota-enforcer-reply-topics");
        thread.setDaemon(true);
        return thread;
    });
    private volatile Set<String> existing = Set.of();
    /** Reply topics seen that accept too little, so each is logged once. */
    private Set<String> refused = Set.of();

    ReplyTopics(Map<String, Object> settings, String topicPrefix) {
        this.admin = Admin.create(ClientSettings.forAdmin(settings));
        this.prefix = Topics.withPrefix(topicPrefix).replies().name();
        refresh();
        refresher.scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void refresh() {
        try {
            List<ConfigResource> named = admin.listTopics().names().get(REFRESH.toMillis(), TimeUnit.MILLISECONDS).stream()
                    .filter(name -> name.startsWith(prefix))
                    .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
            Map<ConfigResource, Config> configs = named.isEmpty() ? Map.of()
                    : admin.describeConfigs(named).all().get(REFRESH.toMillis(), TimeUnit.MILLISECONDS);
            Set<String> accepting = new HashSet<>();
            configs.forEach((topic, config) -> {
                ConfigEntry max = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
                if (max == null || max.value() == null || Long.parseLong(max.value()) >= Topics.MAX_OUTPUT_RECORD_BYTES) {
                    accepting.add(topic.name());
                } else if (!existing.contains(topic.name()) && !refused.contains(topic.name())) {
                    LOG.warn("Not replying to topic {}: its {}={} is less than the {} bytes a reply may take", topic.name(),
                            TopicConfig.MAX_MESSAGE_BYTES_CONFIG, max.value(), Topics.MAX_OUTPUT_RECORD_BYTES);
                }
            });
            refused = named.stream().map(ConfigResource::name).filter(name -> !accepting.contains(name))
                    .collect(Collectors.toUnmodifiableSet());
            existing = Set.copyOf(accepting);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Cannot list reply topics, keeping the last known {}: {}", existing, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean test(String topic) {
        return existing.contains(topic);
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        admin.close(Duration.ofSeconds(5));
    }
}

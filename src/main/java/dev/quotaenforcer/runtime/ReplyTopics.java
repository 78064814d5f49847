package dev.quotaenforcer.runtime;

import dev.quotaenforcer.admin.ClientSettings;
import dev.quotaenforcer.topology.Topics;
import java.time.Duration;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reply topics that exist on the cluster, refreshed in the background, so the topology only
 * replies to topics the producer will find (a missing one would stall its stream thread).
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

    ReplyTopics(Map<String, Object> settings, String topicPrefix) {
        this.admin = Admin.create(ClientSettings.forAdmin(settings));
        this.prefix = Topics.withPrefix(topicPrefix).replies().name();
        refresh();
        refresher.scheduleWithFixedDelay(this::refresh, REFRESH.toMillis(), REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void refresh() {
        try {
            existing = admin.listTopics().names().get(REFRESH.toMillis(), TimeUnit.MILLISECONDS).stream()
                    .filter(name -> name.startsWith(prefix)).collect(Collectors.toUnmodifiableSet());
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

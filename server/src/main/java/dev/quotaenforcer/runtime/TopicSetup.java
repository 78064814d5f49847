package dev.quotaenforcer.runtime;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.ClientSettings;
import dev.quotaenforcer.admin.TopicApplier;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.topology.Topics;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the application's topics from their definitions and, when the plans topic is new (a
 * first start), publishes the sample plans and key assignments that ship with them.
 */
public final class TopicSetup {

    private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);

    private TopicSetup() {
    }

    /** What applying did: the topic report, and the sample key assignments published (empty unless seeded). */
    public record Result(TopicApplier.Report report, Map<String, String> seededKeys) {
    }

    /** Applies the definitions, and seeds the sample plans and keys if the plans topic was created. */
    public static Result applyAndSeed(Map<String, Object> settings, TopicDefinitions definitions)
            throws InterruptedException {
        EnforcerConfig config = new EnforcerConfig(settings);
        Topics topics = Topics.withPrefix(config.topicPrefix());
        TopicDefinitions named = definitions.withPrefix(config.topicPrefix());
        TopicApplier.Report report;
        try (Admin admin = Admin.create(ClientSettings.forAdmin(settings))) {
            report = TopicApplier.apply(admin, named);
        }
        report.created().forEach(topic -> LOG.info("Created topic {}", topic));
        report.differences().forEach(difference -> LOG.warn("Topic differs from its definition, left as is: {}", difference));
        if (report.created(topics.plans().name())) {
            seed(settings, definitions, topics);
            return new Result(report, definitions.seedApiKeys());
        }
        return new Result(report, Map.of());
    }

    private static void seed(Map<String, Object> settings, TopicDefinitions definitions, Topics topics)
            throws InterruptedException {
        CatalogClient catalog = new CatalogClient(settings, topics);
        for (Map.Entry<String, byte[]> plan : definitions.seedPlans().entrySet()) {
            try {
                LOG.info("Loaded sample plan {} from {}", catalog.putPlan(plan.getValue()).id(), plan.getKey());
            } catch (InvalidPlanException e) {
                throw new IllegalStateException("sample plan " + plan.getKey() + " is invalid: " + e.getMessage(), e);
            }
        }
        definitions.seedApiKeys().forEach((apiKey, plan) -> {
            try {
                catalog.assignKey(apiKey, plan);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while loading sample keys", e);
            }
        });
        LOG.info("Assigned sample API keys {}", definitions.seedApiKeys());
    }
}

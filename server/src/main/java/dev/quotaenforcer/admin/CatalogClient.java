package dev.quotaenforcer.admin;

import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import dev.quotaenforcer.topology.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What operators do to plans and keys from the command line: publish a plan, assign a key, list
 * the plans in force. Plans are validated here too, so a typo is reported at once instead of
 * surfacing later on the dead-letter topic.
 */
public final class CatalogClient {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private final Map<String, Object> settings;
    private final Topics topics;
    private final PlanParser parser = new PlanParser();

    /** @param settings the enforcer's settings; each client takes the part it understands */
    public CatalogClient(Map<String, Object> settings, Topics topics) {
        this.settings = Map.copyOf(settings);
        this.topics = topics;
    }

    /** Validates and publishes a plan keyed by its id; returns the plan. */
    public Plan putPlan(byte[] json) throws InvalidPlanException, InterruptedException {
        Plan plan = parser.parsePlan(null, json);
        send(topics.plans().name(), plan.id(), json);
        return plan;
    }

    /** Assigns an API key to a plan. */
    public void assignKey(String apiKey, String planId) throws InterruptedException {
        String assignment = "{\"plan\": \"" + planId + "\"}";
        try {
            parser.parseAssignment(assignment.getBytes(StandardCharsets.UTF_8));
        } catch (InvalidPlanException e) {
            throw new IllegalArgumentException("plan id " + planId + ": " + e.getMessage(), e);
        }
        send(topics.apiKeys().name(), apiKey, assignment.getBytes(StandardCharsets.UTF_8));
    }

    /** The validated plans in force, as the enforcer's catalog holds them, by id. */
    public Map<String, Plan> listPlans() {
        Map<String, Object> consumerSettings = new HashMap<>(ClientSettings.forConsumer(settings));
        consumerSettings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerSettings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, byte[]> latest = new LinkedHashMap<>();
        try (KafkaConsumer<String, byte[]> consumer =
                     new KafkaConsumer<>(consumerSettings, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topics.planCatalog().name(), READ_TIMEOUT)
                    .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, READ_TIMEOUT);
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("timed out reading " + topics.planCatalog().name());
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.value() == null) {
                        latest.remove(record.key());
                    } else {
                        latest.put(record.key(), record.value());
                    }
                }
            }
        }
        Map<String, Plan> plans = new LinkedHashMap<>();
        latest.forEach((id, json) -> {
            try {
                plans.put(id, parser.parsePlan(id, json));
            } catch (InvalidPlanException e) {
                throw new IllegalStateException("the catalog holds a plan this version cannot read: " + id + ": "
                        + e.getMessage(), e);
            }
        });
        return plans;
    }

    private void send(String topic, String key, byte[] value) throws InterruptedException {
        RecordSender.send(settings, topic, key, value);
    }
}

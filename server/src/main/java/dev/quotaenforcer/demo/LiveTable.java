package dev.quotaenforcer.demo;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.topology.Topic;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** Reads committed decisions and prints a per-key table of allowed and denied counts as they change. */
public final class LiveTable implements AutoCloseable {

    private record Row(String plan, long allowed, long denied, String lastReason, String policy, long remaining) {
    }

    private final KafkaConsumer<String, Decision> consumer;
    private final Map<String, Row> rows = new TreeMap<>();
    private final PrintStream out;

    /** @param consumerSettings bootstrap servers and any security settings */
    public LiveTable(Map<String, Object> consumerSettings, Topic<String, Decision> decisions, PrintStream out) {
        Map<String, Object> settings = new HashMap<>(consumerSettings);
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        settings.put(ConsumerConfig.GROUP_ID_CONFIG, "quota-enforcer-demo-table");
        this.consumer = new KafkaConsumer<>(settings, decisions.keySerde().deserializer(),
                decisions.valueSerde().deserializer());
        this.consumer.subscribe(List.of(decisions.name()));
        this.out = out;
    }

    /** Reads what arrived for up to {@code wait} and reprints the table. */
    public void refresh(Duration wait, long sent) {
        for (ConsumerRecord<String, Decision> record : consumer.poll(wait)) {
            Decision decision = record.value();
            Row row = rows.getOrDefault(decision.apiKey(), new Row(decision.plan(), 0, 0, "", "", 0));
            rows.put(decision.apiKey(), new Row(decision.plan(), row.allowed() + (decision.allowed() ? 1 : 0),
                    row.denied() + (decision.allowed() ? 0 : 1), decision.reason().name(),
                    decision.policy() == null ? "-" : decision.policy(), decision.remaining()));
        }
        StringBuilder table = new StringBuilder("\n");
        table.append(String.format("%-15s %-6s %9s %9s  %-15s %-11s %9s%n", "API key", "plan", "allowed", "denied",
                "last decision", "policy", "remaining"));
        rows.forEach((key, row) -> table.append(String.format("%-15s %-6s %9d %9d  %-15s %-11s %9d%n", key, row.plan(),
                row.allowed(), row.denied(), row.lastReason(), row.policy(), row.remaining())));
        table.append(String.format("%d requests sent; Ctrl-C to stop%n", sent));
        out.print(table);
        out.flush();
    }

    @Override
    public void close() {
        consumer.close();
    }
}

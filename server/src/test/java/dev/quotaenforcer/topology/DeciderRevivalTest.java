package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.RequestEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deciding processor initialized again over its task's stores, as Kafka Streams initializes it when
 * it revives the task, decides on from what the stores hold (the topology test driver cleans its state
 * directory as it closes, so it cannot show this).
 */
class DeciderRevivalTest {

    private static final String PLAN = """
            {"id": "small",
             "rateLimits": [{"name": "per-minute", "algorithm": "fixed-window", "limit": 10, "window": "PT1M"}],
             "quota": {"name": "hourly", "limit": 1000, "window": "PT1H"}}""";
    private static final Instant NOON = Instant.parse("2026-11-30T12:00:00Z");

    @TempDir
    Path stateDir;
    private final List<StateStore> stores = new ArrayList<>();
    private MockProcessorContext<String, Object> context;
    private ProcessorSupplier<String, KeyInput, String, Object> decider;
    private long offset;

    @AfterEach
    void closeStores() {
        stores.forEach(StateStore::close);
    }

    @Test
    void aProcessorInitializedAgainCountsOnFromTheKeysTheStoresHold() {
        startTask();
        Processor<String, KeyInput, String, Object> first = decider.get();
        first.init(context);
        assertEquals(6, allowed(first, "k-1", 6));
        commit();

        Processor<String, KeyInput, String, Object> revived = decider.get();
        revived.init(context);

        assertEquals(4, allowed(revived, "k-1", 6), "the 6 allowed before count against the limit of 10");
        assertEquals(6, allowed(revived, "k-2", 6), "a key the stores never held starts afresh");
    }

    private void startTask() {
        QuotaTopology topology = new QuotaTopology(new EnforcerConfig(Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, "revival",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092",
                EnforcerConfig.DEFAULT_PLAN_CONFIG, "small")));
        Properties properties = new Properties();
        properties.putAll(topology.streamsProperties());
        context = new MockProcessorContext<>(properties, new TaskId(0, 0), stateDir.toFile());
        context.setCurrentSystemTimeMs(NOON.toEpochMilli());
        decider = topology.quotaDecider(new CatalogChanges(), new CatalogChanges());
        List<StoreBuilder<?>> builders = new ArrayList<>(decider.stores());
        builders.add(Stores.timestampedKeyValueStoreBuilder(Stores.inMemoryKeyValueStore(QuotaTopology.PLAN_CATALOG_STORE),
                Serdes.String(), Serdes.ByteArray()));
        builders.add(QuotaTopology.keyCatalogStore());
        for (StoreBuilder<?> builder : builders) {
            StateStore store = builder.withCachingDisabled().withLoggingDisabled().build();
            store.init(context.getStateStoreContext(), store);
            context.addStateStore(store);
            stores.add(store);
        }
        TimestampedKeyValueStore<String, byte[]> plans = context.getStateStore(QuotaTopology.PLAN_CATALOG_STORE);
        plans.put("small", ValueAndTimestamp.make(PLAN.getBytes(StandardCharsets.UTF_8), 0));
    }

    /** How many of {@code count} requests of {@code apiKey}, a second apart, were allowed. */
    private int allowed(Processor<String, KeyInput, String, Object> processor, String apiKey, int count) {
        context.resetForwards();
        for (int i = 0; i < count; i++) {
            long time = NOON.toEpochMilli() + offset * 1000;
            context.setRecordMetadata("requests", 0, offset++);
            processor.process(new Record<>(apiKey, new KeyInput.Request(new RequestEvent("r-" + offset, apiKey, 1, time)), time));
        }
        return (int) context.forwarded(OutcomePublisher.DECISIONS).stream()
                .filter(forwarded -> ((Decision) forwarded.record().value()).allowed()).count();
    }

    /** What Kafka Streams asks of the stores as it commits: the write-back stores write back. */
    private void commit() {
        for (StateStore store : stores) {
            if (store instanceof WriteBackStore<?, ?> writeBack) {
                writeBack.flushCache();
            }
        }
    }
}

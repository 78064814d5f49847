package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Block;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Keeps the blocks topic to the blocks in force: passes each block (or lift) on, remembers when each
 * block with an end lapses, and writes the key's tombstone once it has, so what a gateway holds from
 * the compacted topic follows the active blocks rather than every key ever blocked. Lapses are judged
 * by the wall clock, as gateways judge {@link Block#holdsAt}: the topic only informs them.
 */
final class BlockLapses implements Processor<String, Block, String, Block> {

    /** The per-task store of when each published block ends: API key to epoch milliseconds. */
    static final String STORE = "block-ends";
    static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);

    private ProcessorContext<String, Block> context;
    private KeyValueStore<String, Long> ends;

    static ProcessorSupplier<String, Block, String, Block> supplier() {
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, Block, String, Block> get() {
                return new BlockLapses();
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(STORE), Serdes.String(), Serdes.Long()));
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, Block> context) {
        this.context = context;
        this.ends = context.getStateStore(STORE);
        context.schedule(CHECK_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::liftLapsed);
    }

    @Override
    public void process(Record<String, Block> record) {
        Block block = record.value();
        if (block == null || block.until() == null) {
            ends.delete(record.key());
        } else {
            ends.put(record.key(), block.until().toEpochMilli());
        }
        context.forward(record);
    }

    private void liftLapsed(long now) {
        List<String> lapsed = new ArrayList<>();
        try (KeyValueIterator<String, Long> all = ends.all()) {
            while (all.hasNext()) {
                KeyValue<String, Long> end = all.next();
                if (end.value <= now) {
                    lapsed.add(end.key);
                }
            }
        }
        for (String apiKey : lapsed) {
            ends.delete(apiKey);
            context.forward(new Record<>(apiKey, null, now));
        }
    }
}

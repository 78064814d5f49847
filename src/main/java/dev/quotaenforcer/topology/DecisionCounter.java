package dev.quotaenforcer.topology;

import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/** Counts each decision on its way out, with its lag from the request record's timestamp. */
final class DecisionCounter implements FixedKeyProcessor<String, Decided, Decided> {

    private final DecisionStats stats;
    private FixedKeyProcessorContext<String, Decided> context;

    DecisionCounter(DecisionStats stats) {
        this.stats = stats;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Decided> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, Decided> record) {
        stats.decided(record.value().decision(), record.timestamp());
        context.forward(record);
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyUsage;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * One decision as usage, stamped with its event time so the hourly windows are the calendar hours
 * the decisions were made in, not the hours their records happened to be written.
 */
final class UsageDelta implements FixedKeyProcessor<String, Decided, KeyUsage> {

    private FixedKeyProcessorContext<String, KeyUsage> context;

    @Override
    public void init(FixedKeyProcessorContext<String, KeyUsage> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, Decided> record) {
        Decided decided = record.value();
        context.forward(record.withValue(KeyUsage.of(decided.decision(), decided.cost(), decided.quota()))
                .withTimestamp(decided.decision().eventTime().toEpochMilli()));
    }
}

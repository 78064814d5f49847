package dev.quotaenforcer.topology;

import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Stamps usage figures with the time they are written instead of the event time their hour was
 * windowed by: the broker keeps and deletes records by their timestamp, so figures of a replayed
 * hour older than the topic's retention could be deleted once their segment rolls, and it refuses
 * timestamps too far ahead of its clock.
 */
final class WriteTimeStamp<K, V> implements FixedKeyProcessor<K, V, V> {

    private FixedKeyProcessorContext<K, V> context;

    @Override
    public void init(FixedKeyProcessorContext<K, V> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<K, V> record) {
        context.forward(record.withTimestamp(context.currentSystemTimeMs()));
    }
}

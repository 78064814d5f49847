package dev.quotaenforcer.topology;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Writes a rejected record to the dead-letter topic, as {@link DeadLetter} lays it out, with where the
 * record came from.
 */
final class DeadLetterWriter<K> implements Processor<K, Rejection, byte[], byte[]> {

    private final int maxBytes;
    private ProcessorContext<byte[], byte[]> context;

    DeadLetterWriter(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<K, Rejection> record) {
        RecordMetadata source = context.recordMetadata().orElse(null);
        DeadLetter letter = source == null ? DeadLetter.of(record.value(), null, -1, -1, maxBytes)
                : DeadLetter.of(record.value(), source.topic(), source.partition(), source.offset(), maxBytes);
        context.forward(new Record<>(letter.key(), letter.value(), record.timestamp(), letter.headers()));
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.CommandParser;
import dev.quotaenforcer.event.KeyCommand;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Reads raw admin command records, as {@link RequestIntake} reads requests, never changing their
 * key: parses them and says whether each sits on its key's partition, keyed by it, already (then the key's task applies
 * it in place) or must be re-keyed first (keyless, keyed otherwise, or produced by a client whose
 * partitioner differs, such as kcat's). Unreadable commands are rejected, for the dead-letter topic.
 */
final class CommandIntake implements FixedKeyProcessor<String, byte[], CommandIntake.Read> {

    /** One command record read: the command and whether it is placed, or why it was rejected. */
    sealed interface Read permits Read.Accepted, Read.Rejected {

        /** A readable command, and whether it sits on its key's partition, keyed by it, already. */
        record Accepted(KeyCommand command, boolean placed) implements Read {
        }

        /** An unreadable command record, for the dead-letter topic. */
        record Rejected(Rejection rejection) implements Read {
        }
    }

    private final CommandParser parser;
    private final KeyPlacement placement;
    private FixedKeyProcessorContext<String, Read> context;

    CommandIntake(CommandParser parser, KeyPlacement placement) {
        this.parser = parser;
        this.placement = placement;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Read> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
        CommandParser.Parsed parsed = parser.parse(record.value());
        if (parsed instanceof CommandParser.Parsed.Accepted accepted) {
            KeyCommand command = accepted.command();
            boolean placed = placement.holds(command.apiKey(), record.key(), context.recordMetadata());
            context.forward(record.withValue(new Read.Accepted(command, placed)).withHeaders(new RecordHeaders()));
        } else if (parsed instanceof CommandParser.Parsed.Rejected rejected) {
            Rejection rejection = new Rejection(rejected.error(), rejected.reason(), RequestIntake.keyBytes(record.key()),
                    record.value(), record.headers());
            context.forward(record.withValue(new Read.Rejected(rejection)).withHeaders(new RecordHeaders()));
        }
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.CommandParser;
import dev.quotaenforcer.event.KeyCommand;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Reads raw admin command records, as {@link RequestIntake} reads requests: parses them, keys them
 * by API key and says whether each sits on its key's partition already (then the key's task applies
 * it in place) or must be re-keyed first (keyless, keyed otherwise, or produced by a client whose
 * partitioner differs, such as kcat's). Unreadable commands are rejected, for the dead-letter topic.
 */
final class CommandIntake implements Processor<byte[], byte[], String, CommandIntake.Read> {

    /** One command record read: the command and whether it is placed, or why it was rejected. */
    record Read(KeyCommand command, boolean placed, Rejection rejection) {

        boolean accepted() {
            return command != null;
        }
    }

    private final CommandParser parser;
    private final KeyPlacement placement;
    private ProcessorContext<String, Read> context;

    CommandIntake(CommandParser parser, KeyPlacement placement) {
        this.parser = parser;
        this.placement = placement;
    }

    @Override
    public void init(ProcessorContext<String, Read> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        CommandParser.Parsed parsed = parser.parse(record.value());
        KeyCommand command = parsed.command();
        if (command == null) {
            Rejection rejection = new Rejection(parsed.error(), parsed.reason(), record.key(), record.value(), record.headers());
            context.forward(record.<String>withKey(null).withValue(new Read(null, false, rejection))
                    .withHeaders(new RecordHeaders()));
            return;
        }
        boolean placed = placement.holds(command.apiKey(), record.key(), context.recordMetadata());
        context.forward(record.withKey(command.apiKey()).withValue(new Read(command, placed, null))
                .withHeaders(new RecordHeaders()));
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.CommandParser;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.event.RequestParser;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Checks what comes back from the re-keying topics as if it were public input: anyone who can write
 * those internal topics could otherwise hand a task a cost, time or reply topic the intake would
 * refuse, or a key another task counts. Each record is written back to its JSON and read by the
 * intake's own parser (one set of rules, one place), its reply address checked as the intake checks
 * headers, and its key and partition checked against its API key.
 */
final class RekeyedInputCheck implements FixedKeyProcessor<String, KeyInput, RekeyedInputCheck.Checked> {

    /** The error of a dead letter this check leaves. */
    static final String INVALID_REKEYED = "INVALID_REKEYED";

    /** A re-keyed input that passed, or why it did not. */
    sealed interface Checked permits Checked.Passed, Checked.Refused {

        /** An input its key's task may act on. */
        record Passed(KeyInput input) implements Checked {
        }

        /** An input refused, for the dead-letter topic. */
        record Refused(Rejection rejection) implements Checked {
        }
    }

    private final RequestParser requests;
    private final CommandParser commands;
    private final KeyPlacement placement;
    private final ReplyRouting replies;
    private FixedKeyProcessorContext<String, Checked> context;

    RekeyedInputCheck(RequestParser requests, CommandParser commands, KeyPlacement placement, ReplyRouting replies) {
        this.requests = requests;
        this.commands = commands;
        this.placement = placement;
        this.replies = replies;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Checked> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, KeyInput> record) {
        KeyInput input = record.value();
        byte[] json = null;
        String problem;
        if (input instanceof KeyInput.Request keyed) {
            RequestEvent request = keyed.request();
            json = Topics.REKEYED.valueSerde().serializer().serialize(null, request);
            problem = problem(request, requests.parse(json, record.timestamp()), record.key());
        } else if (input instanceof KeyInput.Command keyed) {
            KeyCommand command = keyed.command();
            json = Topics.REKEYED_COMMAND.valueSerde().serializer().serialize(null, command);
            problem = commands.parse(json) instanceof CommandParser.Parsed.Rejected rejected ? rejected.reason()
                    : placementProblem(command.apiKey(), record.key());
        } else {
            problem = "the record has no value";
        }
        if (problem == null) {
            context.forward(record.withValue(new Checked.Passed(input)));
            return;
        }
        Rejection rejection = new Rejection(INVALID_REKEYED, problem, RequestIntake.keyBytes(record.key()), json,
                new RecordHeaders());
        context.forward(record.withValue(new Checked.Refused(rejection)));
    }

    private String problem(RequestEvent request, RequestParser.Parsed parsed, String key) {
        if (parsed instanceof RequestParser.Parsed.Rejected rejected) {
            return rejected.invalid().reason();
        }
        if (request.replyTo() != null && !replies.allows(request.replyTo())) {
            return "replyTo: " + request.replyTo() + " is not a reply address the intake accepts";
        }
        return placementProblem(request.apiKey(), key);
    }

    private String placementProblem(String apiKey, String key) {
        return placement.holds(apiKey, key, context.recordMetadata()) ? null
                : "apiKey " + apiKey + " is not this record's key, or this is not its key's partition";
    }
}

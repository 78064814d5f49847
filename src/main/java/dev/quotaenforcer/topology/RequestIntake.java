package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.InvalidRequest;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.event.RequestParser;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Reads raw request records: parses them, keys them by API key, and says whether each already sits
 * on the partition of its key. Records that do (the common case, from Java producers keyed by API
 * key) are decided in place; the rest are re-keyed through the repartition topic so that a key's
 * count is never split across tasks.
 */
final class RequestIntake implements Processor<byte[], byte[], String, Intake> {

    private final RequestParser parser;
    private final KeyPlacement placement;
    private final ReplyRouting replies;
    private ProcessorContext<String, Intake> context;

    RequestIntake(RequestParser parser, KeyPlacement placement, ReplyRouting replies) {
        this.parser = parser;
        this.placement = placement;
        this.replies = replies;
    }

    @Override
    public void init(ProcessorContext<String, Intake> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RequestParser.Parsed parsed = parser.parse(record.value(), record.timestamp());
        ReplyAddress replyTo = replies.read(record.headers()).orElse(null);
        InvalidRequest invalid = parsed.invalid();
        if (invalid != null) {
            Rejection rejection = new Rejection(invalid.error(), invalid.reason(), record.key(), record.value(), record.headers());
            Decision answer = invalid.answerable() ? Decision.rejected(invalid.requestId(), invalid.apiKey(), null,
                    Reason.INVALID_REQUEST, record.timestamp()) : null;
            context.forward(record.withKey(invalid.apiKey()).withValue(Intake.rejected(rejection, answer, replyTo))
                    .withHeaders(none()));
            return;
        }
        String apiKey = parsed.request().apiKey();
        boolean placed = placement.holds(apiKey, record.key(), context.recordMetadata());
        context.forward(record.withKey(apiKey).withValue(Intake.accepted(parsed.request().withReplyTo(replyTo), placed))
                .withHeaders(none()));
    }

    /**
     * Gateways' headers stay behind: copied onto the repartition topic and every output, one large
     * header would make records the broker refuses, and that refusal stops the stream.
     */
    private static Headers none() {
        return new RecordHeaders();
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.InvalidRequest;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.event.RequestParser;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Reads raw request records: parses them and says whether each already sits on the partition of its
 * key, keyed by it. Records that do (the common case, from Java producers keyed by API key) are
 * decided in place; the rest are re-keyed through the repartition topic so that a key's count is
 * never split across tasks. It never changes a record's key, so Kafka Streams knows the records it
 * keeps in place need no repartitioning downstream either (usage is counted in the deciding task).
 */
final class RequestIntake implements FixedKeyProcessor<String, byte[], Intake> {

    private final RequestParser parser;
    private final KeyPlacement placement;
    private final ReplyRouting replies;
    private FixedKeyProcessorContext<String, Intake> context;

    RequestIntake(RequestParser parser, KeyPlacement placement, ReplyRouting replies) {
        this.parser = parser;
        this.placement = placement;
        this.replies = replies;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Intake> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
        RequestParser.Parsed parsed = parser.parse(record.value(), record.timestamp());
        ReplyRouting.Read reply = replies.read(record.headers());
        ReplyAddress replyTo = reply.address();
        InvalidRequest invalid = parsed.invalid();
        if (invalid == null && reply.problem() != null) {
            // Echoed on the reply or carried through the repartition topic, an oversize header would make
            // a record the broker refuses: the request is refused here instead, answered on the decisions topic.
            invalid = new InvalidRequest("INVALID_HEADER", reply.problem(), parsed.request().requestId(),
                    parsed.request().apiKey());
        }
        if (invalid != null) {
            Rejection rejection = new Rejection(invalid.error(), invalid.reason(), keyBytes(record.key()), record.value(),
                    record.headers());
            Decision answer = invalid.answerable() ? Decision.rejected(invalid.requestId(), invalid.apiKey(), null,
                    Reason.INVALID_REQUEST, record.timestamp()) : null;
            context.forward(record.withValue(Intake.rejected(rejection, answer, replyTo)).withHeaders(none()));
            return;
        }
        String apiKey = parsed.request().apiKey();
        boolean placed = placement.holds(apiKey, record.key(), context.recordMetadata());
        context.forward(record.withValue(Intake.accepted(parsed.request().withReplyTo(replyTo), placed))
                .withHeaders(none()));
    }

    /** The record key as it was produced: exactly so when it was UTF-8, as every API key is. */
    static byte[] keyBytes(String key) {
        return key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Gateways' headers stay behind: copied onto the repartition topic and every output, one large
     * header would make records the broker refuses, and that refusal stops the stream.
     */
    private static Headers none() {
        return new RecordHeaders();
    }
}

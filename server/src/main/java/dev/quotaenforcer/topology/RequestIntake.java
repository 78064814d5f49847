package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.InvalidRequest;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.event.RequestParser;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Reads raw request records: parses them and sends each where it goes. Records that already sit on
 * the partition of their key, keyed by it (the common case, from Java producers keyed by API key),
 * go straight to the key's deciding processor; the rest are re-keyed through the repartition topic
 * so that a key's count is never split across tasks; unreadable ones are dead-lettered and, when
 * the gateway can be told, answered straight to the decisions topic. It forwards to each of those
 * nodes by name, where a split and a map would cost Kafka Streams three more forwards, record copies
 * and metrics per request.
 */
final class RequestIntake implements Processor<String, byte[], String, Object> {

    /** The node that merges every key's inputs before its deciding processor. */
    static final String PLACED = "inputs-by-key";
    /** The node that re-keys a request read on another key's partition. */
    static final String MISPLACED = "misplaced-request";
    /** Where unreadable requests come from, as their dead letters and counts name it. */
    static final String REQUEST = "request";
    /** The node that writes an unreadable request's dead letter. */
    static final String REJECTED = QuotaTopology.deadLetterNode(REQUEST);

    private final RequestParser parser;
    private final KeyPlacement placement;
    private final ReplyRouting replies;
    private final DecisionStats stats;
    private ProcessorContext<String, Object> context;
    private OutcomePublisher outcomes;

    RequestIntake(RequestParser parser, KeyPlacement placement, ReplyRouting replies, DecisionStats stats) {
        this.parser = parser;
        this.placement = placement;
        this.replies = replies;
        this.stats = stats;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.outcomes = new OutcomePublisher(stats, context);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        RequestParser.Parsed parsed = parser.parse(record.value(), record.timestamp());
        ReplyRouting.Read reply = replies.read(record.headers());
        ReplyAddress replyTo = reply instanceof ReplyRouting.Read.To to ? to.address() : null;
        if (parsed instanceof RequestParser.Parsed.Rejected rejected) {
            refuse(record, rejected.invalid(), replyTo);
        } else if (parsed instanceof RequestParser.Parsed.Accepted accepted) {
            RequestEvent request = accepted.request();
            if (reply instanceof ReplyRouting.Read.Refused refused) {
                // Echoed on the reply or carried through the repartition topic, an oversize header would make
                // a record the broker refuses: the request is refused here instead, answered on the decisions topic.
                refuse(record, new InvalidRequest("INVALID_HEADER", refused.problem(), request.requestId(), request.apiKey()),
                        replyTo);
            } else {
                route(record, request.withReplyTo(replyTo));
            }
        }
    }

    /** Dead-letters an unreadable request and, when the gateway can be told, answers it. */
    private void refuse(Record<String, byte[]> record, InvalidRequest invalid, ReplyAddress replyTo) {
        Rejection rejection = new Rejection(invalid.error(), invalid.reason(), keyBytes(record.key()), record.value(),
                record.headers());
        Record<String, byte[]> rejected = record.withHeaders(none());
        context.forward(rejected.withValue(rejection), REJECTED);
        if (invalid.answerable()) {
            // So the gateway is not left waiting for a request it sent.
            outcomes.invalidRequest(rejected, Decision.rejected(invalid.requestId(), invalid.apiKey(), null,
                    Reason.INVALID_REQUEST, record.timestamp()), replyTo);
        }
    }

    /** Sends a readable request to its key's task: straight when it sits on its key's partition, else to be re-keyed. */
    private void route(Record<String, byte[]> record, RequestEvent request) {
        // One record made without the gateway's headers: withValue would copy them first, only to drop them.
        if (placement.holds(request.apiKey(), record.key(), context.recordMetadata())) {
            context.forward(new Record<>(record.key(), new KeyInput.Request(request), record.timestamp(), none()), PLACED);
        } else {
            context.forward(new Record<>(record.key(), request, record.timestamp(), none()), MISPLACED);
        }
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

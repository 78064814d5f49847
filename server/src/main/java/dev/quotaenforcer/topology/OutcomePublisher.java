package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.ReplyAddress;
import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Sends what a processor made of an input straight to the node each part goes to, counting it on the
 * way: a decision to the decisions topic, the gateway's reply address and, when it opens a denial, the
 * exceeded and blocks topics; an admin command's outcome to the blocks or dead-letter topic. The
 * processor that decides forwards to these nodes itself, since every node between it and a sink would
 * cost Kafka Streams a record copy, its headers, metrics and a forward per decision.
 */
final class OutcomePublisher {

    static final String DECISIONS = "decisions-sink";
    static final String REPLIES = "replies-sink";
    static final String EXCEEDED = "exceeded-sink";
    static final String BLOCKS = "block-lapses";
    /** Where commands that could not apply come from, as their dead letters and counts name it. */
    static final String COMMAND_APPLY = "command-apply";
    static final String COMMAND_REJECTIONS = QuotaTopology.deadLetterNode(COMMAND_APPLY);
    /** Where requests decided at the lateness bound come from, as their dead letters and counts name it. */
    static final String LATE = "late-request";
    static final String LATE_REQUESTS = QuotaTopology.deadLetterNode(LATE);
    /** The intake's own sinks of the decisions and replies topics, for its INVALID_REQUEST answers. */
    static final String INVALID_REQUEST_DECISIONS = "invalid-request-decisions-sink";
    static final String INVALID_REQUEST_REPLIES = "invalid-request-replies-sink";

    private final DecisionStats stats;
    private final ProcessorContext<String, Object> context;
    /**
     * The request time of the last decision whose lag was timed. The lag is timed for the first decision of
     * each request millisecond the task sees: every decision at a few per millisecond, a sample at high rates,
     * where timing each took 3% to 4% of the stream thread (three clock reads and a shared histogram's update).
     */
    private long lagTimedAt = Long.MIN_VALUE;

    OutcomePublisher(DecisionStats stats, ProcessorContext<String, Object> context) {
        this.stats = stats;
        this.context = context;
    }

    /** A decided request: its decision and reply, the exceeded events and block it opens, its lateness dead letter. */
    void decided(Record<String, ?> record, DecidedRequest decided) {
        answer(record, decided.decision(), decided.replyTo(), DECISIONS, REPLIES);
        // Indexed: nearly always empty, and an empty list's iterator was still allocated here per decision.
        List<QuotaExceeded> exceeded = decided.exceeded();
        for (int i = 0; i < exceeded.size(); i++) {
            QuotaExceeded event = exceeded.get(i);
            stats.exceeded(event);
            context.forward(record.withValue(event), EXCEEDED);
        }
        if (decided.late() != null) {
            context.forward(record.withValue(decided.late()), LATE_REQUESTS);
        }
        Block block = decided.block();
        if (block != null) {
            context.forward(record.withValue(block), BLOCKS);
        }
    }

    /** The INVALID_REQUEST answer to an unreadable request, keyed by the API key read from it. */
    void invalidRequest(Record<String, ?> record, Decision answer, ReplyAddress replyTo) {
        answer(record.withKey(answer.apiKey()), answer, replyTo, INVALID_REQUEST_DECISIONS, INVALID_REQUEST_REPLIES);
    }

    /** An applied command: what the blocks topic holds for its key now (null: a tombstone lifting any block). */
    void applied(Record<String, ?> record, KeyCommand command, Block block) {
        stats.commandApplied(command.type());
        context.forward(record.withValue(block), BLOCKS);
    }

    /** A command that could not apply: its dead letter. */
    void notApplied(Record<String, ?> record, Rejection rejection) {
        context.forward(record.withValue(rejection), COMMAND_REJECTIONS);
    }

    private void answer(Record<String, ?> record, Decision decision, ReplyAddress replyTo, String decisions, String replies) {
        long requestTime = record.timestamp();
        boolean timeLag = requestTime != lagTimedAt;
        if (timeLag) {
            lagTimedAt = requestTime;
        }
        stats.decided(decision, requestTime, timeLag);
        context.forward(record.withValue(decision), decisions);
        if (replyTo != null) {
            context.forward(record.withValue(new ReplyRouting.Reply(decision, replyTo))
                    .withHeaders(ReplyRouting.replyHeaders(replyTo)), replies);
        }
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.QuotaExceeded;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * Sends what a key's task made of each input where it goes, counting it on the way: a decision to the
 * decisions topic, the gateway's reply address and, when it opens a denial, the
 * exceeded and blocks topics; an admin command's outcome to the blocks or dead-letter topic. One node
 * names each destination, where a chain of DSL filters and maps cost Kafka Streams a record copy, its
 * headers and a forward for every step of every decision.
 */
final class OutcomePublisher implements FixedKeyProcessor<String, Handled, Object> {

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

    private final DecisionStats stats;
    private FixedKeyProcessorContext<String, Object> context;

    OutcomePublisher(DecisionStats stats) {
        this.stats = stats;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Object> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, Handled> record) {
        Handled handled = record.value();
        if (handled.isDecision()) {
            publish(record, handled.decided());
        } else if (handled.isAppliedCommand()) {
            stats.commandApplied(handled.command().type());
            context.forward(record.withValue(handled.block()), BLOCKS);
        } else {
            context.forward(record.withValue(handled.rejection()), COMMAND_REJECTIONS);
        }
    }

    private void publish(FixedKeyRecord<String, Handled> record, Decided decided) {
        stats.decided(decided.decision(), record.timestamp());
        context.forward(record.withValue(decided.decision()), DECISIONS);
        if (decided.replyTo() != null) {
            context.forward(record.withValue(new ReplyRouting.Reply(decided.decision(), decided.replyTo()))
                    .withHeaders(ReplyRouting.replyHeaders(decided.replyTo())), REPLIES);
        }
        for (QuotaExceeded event : decided.exceeded()) {
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
}

package dev.quotaenforcer.topology;

import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/** Turns a decision bound for a gateway's reply address into the reply record, with its correlation header. */
final class ReplyAddressing implements FixedKeyProcessor<String, Decided, ReplyRouting.Reply> {

    private FixedKeyProcessorContext<String, ReplyRouting.Reply> context;

    @Override
    public void init(FixedKeyProcessorContext<String, ReplyRouting.Reply> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, Decided> record) {
        Decided decided = record.value();
        context.forward(record.withValue(new ReplyRouting.Reply(decided.decision(), decided.replyTo()))
                .withHeaders(ReplyRouting.replyHeaders(decided.replyTo())));
    }
}

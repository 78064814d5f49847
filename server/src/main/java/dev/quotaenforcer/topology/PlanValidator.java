package dev.quotaenforcer.topology;

import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Admits plans into the plan catalog only when they are valid; an invalid one is rejected with a
 * reason naming the field and value, and the previous version of that plan stays in force.
 */
final class PlanValidator implements Processor<String, byte[], String, CatalogUpdate<byte[]>> {

    private final PlanParser parser = new PlanParser();
    private ProcessorContext<String, CatalogUpdate<byte[]>> context;

    @Override
    public void init(ProcessorContext<String, CatalogUpdate<byte[]>> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.value() == null) {
            if (record.key() == null) {
                reject(record, "plan: a deletion (null value) needs the plan id as its key");
            } else {
                context.forward(record.withValue(new CatalogUpdate.Accepted<byte[]>(null)).withHeaders(new RecordHeaders()));
            }
            return;
        }
        try {
            Plan plan = parser.parsePlan(record.key(), record.value());
            context.forward(record.withKey(plan.id()).withValue(new CatalogUpdate.Accepted<>(record.value()))
                    .withHeaders(new RecordHeaders()));
        } catch (InvalidPlanException e) {
            reject(record, "plan " + (record.key() == null ? "(no key)" : '"' + record.key() + '"') + ": " + e.getMessage());
        } catch (RuntimeException e) {
            // A plan the parser failed on is still just a bad plan: it must not stop the stream.
            reject(record, "plan could not be read: " + e);
        }
    }

    private void reject(Record<String, byte[]> record, String reason) {
        byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
        Rejection rejection = new Rejection("INVALID_PLAN", reason, key, record.value(), record.headers());
        context.forward(record.withValue(new CatalogUpdate.Rejected<byte[]>(rejection)).withHeaders(new RecordHeaders()));
    }
}

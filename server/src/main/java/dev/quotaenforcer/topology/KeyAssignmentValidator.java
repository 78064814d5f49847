package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.RequestParser;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.PlanParser;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Admits API-key assignments ({@code {"plan": "pro"}} keyed by the API key) into the key catalog;
 * a tombstone revokes the key; anything unreadable is rejected and the previous assignment stays.
 */
final class KeyAssignmentValidator implements Processor<String, byte[], String, CatalogUpdate<String>> {

    private final PlanParser parser = new PlanParser();
    private ProcessorContext<String, CatalogUpdate<String>> context;

    @Override
    public void init(ProcessorContext<String, CatalogUpdate<String>> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String apiKey = record.key();
        if (apiKey == null || apiKey.isEmpty() || apiKey.length() > RequestParser.MAX_ID_LENGTH) {
            reject(record, "key: an assignment must be keyed by the API key (1 to " + RequestParser.MAX_ID_LENGTH
                    + " characters), got " + (apiKey == null ? "no key" : apiKey.length() + " characters"));
            return;
        }
        if (record.value() == null) {
            context.forward(record.withValue(new CatalogUpdate.Accepted<String>(null)).withHeaders(new RecordHeaders()));
            return;
        }
        try {
            String plan = parser.parseAssignment(record.value());
            context.forward(record.withValue(new CatalogUpdate.Accepted<>(plan)).withHeaders(new RecordHeaders()));
        } catch (InvalidPlanException e) {
            reject(record, "assignment of \"" + apiKey + "\": " + e.getMessage());
        } catch (RuntimeException e) {
            reject(record, "assignment of \"" + apiKey + "\" could not be read: " + e);
        }
    }

    private void reject(Record<String, byte[]> record, String reason) {
        byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
        Rejection rejection = new Rejection("INVALID_ASSIGNMENT", reason, key, record.value(), record.headers());
        context.forward(record.withValue(new CatalogUpdate.Rejected<String>(rejection)).withHeaders(new RecordHeaders()));
    }
}

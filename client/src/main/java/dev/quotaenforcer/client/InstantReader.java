package dev.quotaenforcer.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import dev.quotaenforcer.event.Timestamps;
import java.io.IOException;
import java.time.Instant;

/**
 * Reads the instants the enforcer writes ({@link Instant#toString()}'s form: a four-digit year, UTC,
 * {@code Z}) as the enforcer reads request times, and anything else as Jackson's own
 * {@link InstantDeserializer} does: its formatter took two fifths of the time a gateway spent reading
 * each decision.
 */
final class InstantReader extends StdScalarDeserializer<Instant> {

    InstantReader() {
        super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.hasToken(JsonToken.VALUE_STRING)) {
            Instant instant = Timestamps.utcInstant(parser.getText());
            if (instant != null) {
                return instant;
            }
        }
        return InstantDeserializer.INSTANT.deserialize(parser, context);
    }
}

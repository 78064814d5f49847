package dev.quotaenforcer.http;

import io.javalin.http.Context;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/**
 * What the routes answer from once Kafka Streams exists; it is attached after the server starts, as
 * Kafka Streams needs the server's port first, for its application.server.
 */
record Attached(KafkaStreams streams, LocalStores stores, InstanceRouter router, RecentExceeded exceeded) {

    /** The application attached now; null, answered 503, while the enforcer is starting. */
    static Attached ready(Context ctx, Supplier<Attached> attached) {
        Attached now = attached.get();
        if (now == null) {
            Answers.unavailable(ctx, "the enforcer is starting");
        }
        return now;
    }
}

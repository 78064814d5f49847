package dev.quotaenforcer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quotaenforcer.topology.JsonSerde;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/** {@code /health} and the probes, read from the Kafka Streams state, and the Prometheus {@code /metrics}. */
final class HealthRoutes {

    private static final ObjectMapper JSON = JsonSerde.mapper();

    private final Supplier<Attached> attached;
    private final PrometheusMeterRegistry metrics;

    HealthRoutes(Supplier<Attached> attached, PrometheusMeterRegistry metrics) {
        this.attached = attached;
        this.metrics = metrics;
    }

    void register(RoutesConfig routes, BearerAuth auth) {
        // Open, so that a probe needs no token.
        routes.get("/health", this::health);
        routes.get(OperatorServer.LIVE_PATH, ctx -> ctx.status(isLive() ? 200 : 503).result(streamsState()));
        routes.get(OperatorServer.READY_PATH, ctx -> ctx.status(isReady() ? 200 : 503).result(streamsState()));
        routes.get("/metrics", auth.protect(ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                .result(metrics.scrape())));
    }

    private void health(Context ctx) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("status", isReady() ? "UP" : isLive() ? "STARTING" : "DOWN");
        body.put("live", isLive());
        body.put("ready", isReady());
        body.put("streams", streamsState());
        Answers.json(ctx.status(isReady() ? 200 : 503), body);
    }

    private String streamsState() {
        Attached now = attached.get();
        return now == null ? "NOT_STARTED" : now.streams().state().name();
    }

    /** Live while Kafka Streams can still get to RUNNING: not failed, not shut down. */
    private boolean isLive() {
        Attached now = attached.get();
        if (now == null) {
            return true;
        }
        KafkaStreams.State state = now.streams().state();
        return state != KafkaStreams.State.ERROR && state != KafkaStreams.State.NOT_RUNNING
                && state != KafkaStreams.State.PENDING_ERROR && state != KafkaStreams.State.PENDING_SHUTDOWN;
    }

    private boolean isReady() {
        Attached now = attached.get();
        return now != null && now.streams().state() == KafkaStreams.State.RUNNING;
    }
}

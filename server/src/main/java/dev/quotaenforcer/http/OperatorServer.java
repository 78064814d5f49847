package dev.quotaenforcer.http;

import dev.quotaenforcer.http.RequestParameters.BadRequest;
import dev.quotaenforcer.topology.Topics;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator HTTP API and dashboard every instance serves: usage per key (answered by the
 * instance that owns the key, whichever instance is asked), plans and their hourly usage, recent
 * quota-exceeded events, health from the Kafka Streams state, and Prometheus metrics; with a token
 * file, only to callers with a bearer token, but for the health probes and the dashboard's page.
 * Each resource's routes are a class of their own; this one starts, attaches and stops the server.
 */
public final class OperatorServer implements AutoCloseable {

    /** Liveness probe, open without a token: 200 unless Kafka Streams failed or is shutting down. */
    public static final String LIVE_PATH = "/health/live";
    /** Readiness probe, open without a token: 200 while Kafka Streams runs. */
    public static final String READY_PATH = "/health/ready";

    private static final Logger LOG = LoggerFactory.getLogger(OperatorServer.class);
    private static final int MAX_REQUEST_HEAD_BYTES = 128 * 1024;

    private final Javalin server;
    private final String defaultPlan;
    private volatile Attached attached;

    private OperatorServer(String bindAddress, int port, PrometheusMeterRegistry metrics, Clock clock, String defaultPlan,
                           AccessTokens tokens, boolean maskApiKeys) {
        this.defaultPlan = defaultPlan;
        DashboardPage dashboard = new DashboardPage();
        BearerAuth auth = new BearerAuth(tokens, metrics);
        KeyDisplay keys = KeyDisplay.of(maskApiKeys);
        Supplier<Attached> app = () -> attached;
        this.server = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jetty.host = bindAddress;
            config.jetty.port = port;
            // Room for a path or query far longer than any valid one, so that requireModestSize refuses it.
            config.jetty.modifyHttpConfiguration(http -> http.setRequestHeaderSize(MAX_REQUEST_HEAD_BYTES));
            config.jetty.modifyServer(jetty -> jetty.setErrorHandler(new ProblemErrorHandler()));
            config.routes.before(RequestParameters::requireModestSize);
            dashboard.register(config.routes);
            new HealthRoutes(app, metrics).register(config.routes, auth);
            new KeyUsageRoutes(app, clock).register(config.routes, auth);
            new PlanRoutes(app, clock, keys).register(config.routes, auth);
            new ExceededRoutes(app, keys).register(config.routes, auth);
            config.routes.exception(BadRequest.class, (e, ctx) -> Answers.problem(ctx, 400, e.getMessage()));
            config.routes.exception(InvalidStateStoreException.class, (e, ctx) -> Answers.unavailable(ctx,
                    "state is moving between instances or restoring: " + e.getMessage()));
        });
        server.start();
    }

    /**
     * Starts serving on {@code port} (0: any free port); the usage endpoints answer 503 until
     * {@link #attach} hands over the running application.
     *
     * @param tokens      the bearer tokens every endpoint but the probes and the dashboard's page requires;
     *                    null leaves the API open to anyone who reaches it
     * @param maskApiKeys whether the keys listed in top keys and quota-exceeded events are masked
     */
    public static OperatorServer start(String bindAddress, int port, PrometheusMeterRegistry metrics, Clock clock,
                                       String defaultPlan, AccessTokens tokens, boolean maskApiKeys) {
        OperatorServer server = new OperatorServer(bindAddress, port, metrics, clock, defaultPlan, tokens, maskApiKeys);
        if (tokens == null) {
            LOG.warn("The operator HTTP API on port {} is unauthenticated: anyone who reaches it reads usage, plans and "
                    + "metrics; set quota.http.auth.tokens.file to require a bearer token", server.port());
        } else {
            LOG.info("The operator HTTP API on port {} requires a bearer token: {} accepted, read from {}", server.port(),
                    tokens.size(), tokens.source());
        }
        return server;
    }

    public int port() {
        return server.port();
    }

    /**
     * Serves the application's stores from now on.
     *
     * @param self           this instance's application.server, as other instances see it
     * @param clientSettings settings of a plain consumer of the cluster (for recent quota-exceeded events)
     */
    public void attach(KafkaStreams streams, HostInfo self, Map<String, Object> clientSettings,
                       Topics topics) {
        // Keeps as many quota-exceeded events as a caller may ask for.
        attached = new Attached(streams, new LocalStores(streams, defaultPlan), new InstanceRouter(streams, self),
                new RecentExceeded(clientSettings, topics.exceeded(), RequestParameters.MAX_LIST));
    }

    @Override
    public void close() throws InterruptedException {
        server.stop();
        Attached now = attached;
        if (now != null) {
            now.exceeded().close();
        }
    }
}

package dev.quotaenforcer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.PolicyStanding;
import dev.quotaenforcer.engine.QuotaEngine;
import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.event.RequestParser;
import dev.quotaenforcer.http.RequestParameters.BadRequest;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import dev.quotaenforcer.topology.JsonSerde;
import dev.quotaenforcer.topology.QuotaTopology;
import dev.quotaenforcer.topology.Topics;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 */
public final class OperatorServer implements AutoCloseable {

    /** Liveness probe, open without a token: 200 unless Kafka Streams failed or is shutting down. */
    public static final String LIVE_PATH = "/health/live";
    /** Readiness probe, open without a token: 200 while Kafka Streams runs. */
    public static final String READY_PATH = "/health/ready";

    private static final Logger LOG = LoggerFactory.getLogger(OperatorServer.class);
    private static final ObjectMapper JSON = JsonSerde.mapper();
    private static final int DEFAULT_TOP_KEYS = 20;
    private static final int MAX_REQUEST_HEAD_BYTES = 128 * 1024;

    private final Javalin server;
    private final PrometheusMeterRegistry metrics;
    private final Clock clock;
    private final String defaultPlan;
    private final byte[] dashboard;
    private final BearerAuth auth;
    private final KeyDisplay keys;
    private volatile Attached attached;

    /** What answers once Kafka Streams exists: it needs this server's port first, as its application.server. */
    private record Attached(KafkaStreams streams, LocalStores stores, InstanceRouter router, RecentExceeded exceeded) {
    }

    private OperatorServer(String bindAddress, int port, PrometheusMeterRegistry metrics, Clock clock, String defaultPlan,
                           AccessTokens tokens, boolean maskApiKeys) {
        this.metrics = metrics;
        this.clock = clock;
        this.defaultPlan = defaultPlan;
        this.dashboard = resource("/dashboard/index.html");
        this.auth = new BearerAuth(tokens, metrics);
        this.keys = KeyDisplay.of(maskApiKeys);
        this.server = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jetty.host = bindAddress;
            config.jetty.port = port;
            // Room for a path or query far longer than any valid one, so that requireModestSize refuses it.
            config.jetty.modifyHttpConfiguration(http -> http.setRequestHeaderSize(MAX_REQUEST_HEAD_BYTES));
            config.jetty.modifyServer(jetty -> jetty.setErrorHandler(new ProblemErrorHandler()));
            config.routes.before(RequestParameters::requireModestSize);
            // Open: the probes, and the dashboard's page, the same static bytes for everyone (it asks for a token
            // when the API needs one, and sends it with each of its requests).
            config.routes.get("/", ctx -> ctx.contentType("text/html; charset=utf-8").result(dashboard));
            config.routes.get("/health", this::health);
            config.routes.get(LIVE_PATH, ctx -> ctx.status(isLive() ? 200 : 503).result(streamsState()));
            config.routes.get(READY_PATH, ctx -> ctx.status(isReady() ? 200 : 503).result(streamsState()));
            config.routes.get("/metrics", auth.protect(ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                    .result(metrics.scrape())));
            config.routes.get("/usage/{apiKey}", auth.protect(this::keyUsage));
            config.routes.get("/plans", auth.protect(this::plans));
            config.routes.get("/plans/{plan}/usage", auth.protect(this::planUsage));
            config.routes.get("/exceeded", auth.protect(this::exceeded));
            config.routes.get("/internal/plan-usage/{plan}", auth.protect(this::localPlanUsage));
            config.routes.get("/internal/top-keys/{plan}", auth.protect(this::localTopKeys));
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
        attached = new Attached(streams, new LocalStores(streams, defaultPlan), new InstanceRouter(streams, self),
                new RecentExceeded(clientSettings, topics.exceeded(), RequestParameters.MAX_LIST));
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
        Attached now = attached;
        return now == null ? "NOT_STARTED" : now.streams().state().name();
    }

    /** Live while Kafka Streams can still get to RUNNING: not failed, not shut down. */
    private boolean isLive() {
        Attached now = attached;
        if (now == null) {
            return true;
        }
        KafkaStreams.State state = now.streams().state();
        return state != KafkaStreams.State.ERROR && state != KafkaStreams.State.NOT_RUNNING
                && state != KafkaStreams.State.PENDING_ERROR && state != KafkaStreams.State.PENDING_SHUTDOWN;
    }

    private boolean isReady() {
        Attached now = attached;
        return now != null && now.streams().state() == KafkaStreams.State.RUNNING;
    }

    private Attached ready(Context ctx) {
        Attached now = attached;
        if (now == null) {
            Answers.unavailable(ctx, "the enforcer is starting");
        }
        return now;
    }

    private void keyUsage(Context ctx) throws IOException, InterruptedException {
        Attached app = ready(ctx);
        if (app == null) {
            return;
        }
        String apiKey = ctx.pathParam("apiKey");
        if (apiKey.isEmpty() || apiKey.length() > RequestParser.MAX_ID_LENGTH) {
            throw new BadRequest("an API key has 1 to " + RequestParser.MAX_ID_LENGTH + " characters; this one has "
                    + apiKey.length());
        }
        RequestParameters.instant(ctx, "at", RequestParameters.now(clock));
        InstanceRouter.Owner owner = app.router().owner(QuotaTopology.STATE_STORE, apiKey);
        if (owner == null) {
            Answers.unavailable(ctx, "no instance owns key " + apiKey + " at the moment (starting or rebalancing)");
            return;
        }
        if (!owner.local()) {
            Forwarding.forward(ctx, app.router(), owner.host());
            return;
        }
        String planId = app.stores().planOf(apiKey);
        if (planId == null) {
            Answers.problem(ctx, 404, "API key " + apiKey + " is assigned to no plan and there is no default plan");
            return;
        }
        Plan plan = app.stores().plan(planId);
        if (plan == null) {
            Answers.problem(ctx, 404, "API key " + apiKey + " is assigned to plan " + planId + ", which is not in the catalog");
            return;
        }
        Instant at = RequestParameters.instant(ctx, "at", RequestParameters.now(clock));
        KeyState state = app.stores().keyState(apiKey, owner.partition());
        List<KeyUsageView.PolicyView> policies = new ArrayList<>();
        for (PolicyStanding standing : QuotaEngine.standings(plan, state, at.toEpochMilli())) {
            policies.add(KeyUsageView.PolicyView.of(standing));
        }
        boolean blocked = state != null && state.blockedAt(at.toEpochMilli());
        Instant blockedUntil = blocked && state.blockedUntil() != KeyState.BLOCKED_WITHOUT_END
                ? Instant.ofEpochMilli(state.blockedUntil()) : null;
        Answers.json(ctx, new KeyUsageView(apiKey, planId, at, app.router().self(), blocked, blockedUntil, policies,
                app.stores().keyUsage(apiKey, RequestParameters.hourOf(at), owner.partition())));
    }

    private void plans(Context ctx) throws IOException {
        Attached app = ready(ctx);
        if (app == null) {
            return;
        }
        ObjectNode body = JSON.createObjectNode();
        ArrayNode plans = body.putArray("plans");
        for (byte[] plan : app.stores().planJson().values()) {
            plans.add(JSON.readTree(plan));
        }
        Answers.json(ctx, body);
    }

    /** A plan, the hour asked about, the moment its keys' quotas are read at, and how many keys to list. */
    private record PlanQuery(Plan plan, Instant hour, Instant at, int limit) {

        String parameters() {
            return "?hour=" + hour + "&at=" + at + "&limit=" + limit;
        }
    }

    /** The query of a plan request; null, answered 404, when the plan is not in this instance's catalog. */
    private PlanQuery planQuery(Context ctx, Attached app) {
        String planId = ctx.pathParam("plan");
        if (!PlanParser.isPlanId(planId)) {
            throw new BadRequest("plan id " + RequestParser.abbreviate(planId) + " is not a plan's name (1 to 64 letters, "
                    + "digits, '.', '_' or '-')");
        }
        Plan plan = app.stores().plan(planId);
        if (plan == null) {
            Answers.problem(ctx, 404, "plan " + planId + " is not in the catalog");
            return null;
        }
        Instant hour = RequestParameters.hourOf(RequestParameters.instant(ctx, "hour", RequestParameters.now(clock)));
        return new PlanQuery(plan, hour, RequestParameters.instant(ctx, "at", latestIn(hour)),
                RequestParameters.count(ctx, "limit", DEFAULT_TOP_KEYS));
    }

    /** The instance that owns the plan's hour; null, answered 503, while none does. */
    private static InstanceRouter.Owner planUsageOwner(Context ctx, Attached app, PlanQuery query) {
        String planId = query.plan().id();
        InstanceRouter.Owner owner = app.router().owner(QuotaTopology.PLAN_USAGE_STORE,
                QuotaTopology.hourKey(planId, query.hour()));
        if (owner == null) {
            Answers.unavailable(ctx, "no instance owns the usage of plan " + planId + " at the moment (starting or rebalancing)");
        }
        return owner;
    }

    private void planUsage(Context ctx) throws IOException, InterruptedException {
        Attached app = ready(ctx);
        PlanQuery query = app == null ? null : planQuery(ctx, app);
        if (query == null) {
            return;
        }
        String planId = query.plan().id();
        InstanceRouter.Owner owner = planUsageOwner(ctx, app, query);
        if (owner == null) {
            return;
        }
        List<String> unreachable = new ArrayList<>();
        PlanUsage usage = owner.local() ? app.stores().planUsage(planId, query.hour(), owner.partition())
                : Forwarding.ask(ctx, app.router(), owner.host(), "/internal/plan-usage/" + encode(planId) + query.parameters(),
                        PlanUsage.class, unreachable);

        // Each instance shows the keys it lists as its own setting says (masked or not): set it alike on all.
        List<TopKey> topKeys = new ArrayList<>(localTopKeys(app, query));
        for (HostInfo other : app.router().others(QuotaTopology.STATE_STORE)) {
            TopKey[] theirs = Forwarding.ask(ctx, app.router(), other, "/internal/top-keys/" + encode(planId) + query.parameters(),
                    TopKey[].class, unreachable);
            if (theirs != null) {
                topKeys.addAll(List.of(theirs));
            }
        }
        topKeys.sort(TopKey.NEAREST_TO_QUOTA);
        Answers.json(ctx, new PlanUsageView(planId, query.hour(), usage == null ? PlanUsage.none(planId, query.hour()) : usage,
                topKeys.size() > query.limit() ? topKeys.subList(0, query.limit()) : topKeys, unreachable));
    }

    private void localPlanUsage(Context ctx) throws IOException {
        Attached app = ready(ctx);
        PlanQuery query = app == null ? null : planQuery(ctx, app);
        if (query == null) {
            return;
        }
        String planId = query.plan().id();
        InstanceRouter.Owner owner = planUsageOwner(ctx, app, query);
        if (owner == null) {
            return;
        }
        if (!owner.local()) {
            Answers.unavailable(ctx, "the usage of plan " + planId + " is no longer owned here");
            return;
        }
        PlanUsage usage = app.stores().planUsage(planId, query.hour(), owner.partition());
        Answers.json(ctx, usage == null ? PlanUsage.none(planId, query.hour()) : usage);
    }

    private void localTopKeys(Context ctx) throws IOException {
        Attached app = ready(ctx);
        PlanQuery query = app == null ? null : planQuery(ctx, app);
        if (query != null) {
            Answers.json(ctx, localTopKeys(app, query));
        }
    }

    private List<TopKey> localTopKeys(Attached app, PlanQuery query) {
        return app.stores().topKeys(query.plan(), query.hour(), query.at(), query.limit()).stream().map(keys::show).toList();
    }

    private void exceeded(Context ctx) throws IOException {
        Attached app = ready(ctx);
        if (app == null) {
            return;
        }
        Answers.json(ctx, Map.of("events", app.exceeded().latest(RequestParameters.count(ctx, "limit", 50))
                .stream().map(keys::show).toList()));
    }

    /** Now, if now lies in the hour; else the hour's last millisecond (a past hour is shown as it ended). */
    private Instant latestIn(Instant hour) {
        Instant now = RequestParameters.now(clock);
        Instant end = hour.plus(1, ChronoUnit.HOURS);
        return now.isBefore(end) && !now.isBefore(hour) ? now : end.minusMillis(1);
    }

    private static String encode(String pathSegment) {
        return URLEncoder.encode(pathSegment, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static byte[] resource(String path) {
        try (InputStream in = OperatorServer.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

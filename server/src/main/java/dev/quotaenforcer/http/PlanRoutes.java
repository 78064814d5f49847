package dev.quotaenforcer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.event.RequestParser;
import dev.quotaenforcer.http.RequestParameters.BadRequest;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import dev.quotaenforcer.topology.JsonSerde;
import dev.quotaenforcer.topology.QuotaTopology;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code /plans} and a plan's hourly usage with its keys nearest to quota, gathered from every instance
 * through the {@code /internal} routes, which answer from this instance's own stores.
 */
final class PlanRoutes {

    private static final ObjectMapper JSON = JsonSerde.mapper();
    private static final int DEFAULT_TOP_KEYS = 20;

    private final Supplier<Attached> attached;
    private final Clock clock;
    private final KeyDisplay keys;

    PlanRoutes(Supplier<Attached> attached, Clock clock, KeyDisplay keys) {
        this.attached = attached;
        this.clock = clock;
        this.keys = keys;
    }

    void register(RoutesConfig routes, BearerAuth auth) {
        routes.get("/plans", auth.protect(this::plans));
        routes.get("/plans/{plan}/usage", auth.protect(this::planUsage));
        routes.get("/internal/plan-usage/{plan}", auth.protect(this::localPlanUsage));
        routes.get("/internal/top-keys/{plan}", auth.protect(this::localTopKeys));
    }

    private void plans(Context ctx) throws IOException {
        Attached app = Attached.ready(ctx, attached);
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

    /** A plan request with the instance that owns the plan's hour. */
    private record Owned(Attached app, PlanQuery query, InstanceRouter.Owner owner) {
    }

    /**
     * The plan request and the instance that owns its hour; null when it has been answered already: 503
     * while the enforcer starts or no instance owns the hour, 404 for a plan not in the catalog.
     */
    private Owned owned(Context ctx) {
        Attached app = Attached.ready(ctx, attached);
        PlanQuery query = app == null ? null : planQuery(ctx, app);
        if (query == null) {
            return null;
        }
        InstanceRouter.Owner owner = app.router().owner(QuotaTopology.PLAN_USAGE_STORE,
                QuotaTopology.hourKey(query.plan().id(), query.hour()));
        if (owner == null) {
            Answers.unavailable(ctx, "no instance owns the usage of plan " + query.plan().id()
                    + " at the moment (starting or rebalancing)");
            return null;
        }
        return new Owned(app, query, owner);
    }

    private void planUsage(Context ctx) throws IOException, InterruptedException {
        Owned owned = owned(ctx);
        if (owned == null) {
            return;
        }
        Attached app = owned.app();
        PlanQuery query = owned.query();
        InstanceRouter.Owner owner = owned.owner();
        String planId = query.plan().id();
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
        Owned owned = owned(ctx);
        if (owned == null) {
            return;
        }
        PlanQuery query = owned.query();
        InstanceRouter.Owner owner = owned.owner();
        String planId = query.plan().id();
        if (!owner.local()) {
            Answers.unavailable(ctx, "the usage of plan " + planId + " is no longer owned here");
            return;
        }
        PlanUsage usage = owned.app().stores().planUsage(planId, query.hour(), owner.partition());
        Answers.json(ctx, usage == null ? PlanUsage.none(planId, query.hour()) : usage);
    }

    private void localTopKeys(Context ctx) throws IOException {
        Attached app = Attached.ready(ctx, attached);
        PlanQuery query = app == null ? null : planQuery(ctx, app);
        if (query != null) {
            Answers.json(ctx, localTopKeys(app, query));
        }
    }

    private List<TopKey> localTopKeys(Attached app, PlanQuery query) {
        return app.stores().topKeys(query.plan(), query.hour(), query.at(), query.limit()).stream().map(keys::show).toList();
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
}

package dev.quotaenforcer.http;

import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.PolicyStanding;
import dev.quotaenforcer.engine.QuotaEngine;
import dev.quotaenforcer.event.RequestParser;
import dev.quotaenforcer.http.RequestParameters.BadRequest;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.topology.QuotaTopology;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** {@code /usage/{apiKey}}: a key's standing and usage, answered by the instance that owns the key, whichever is asked. */
final class KeyUsageRoutes {

    private final Supplier<Attached> attached;
    private final Clock clock;

    KeyUsageRoutes(Supplier<Attached> attached, Clock clock) {
        this.attached = attached;
        this.clock = clock;
    }

    void register(RoutesConfig routes, BearerAuth auth) {
        routes.get("/usage/{apiKey}", auth.protect(this::keyUsage));
    }

    private void keyUsage(Context ctx) throws IOException, InterruptedException {
        Attached app = Attached.ready(ctx, attached);
        if (app == null) {
            return;
        }
        String apiKey = ctx.pathParam("apiKey");
        if (apiKey.isEmpty() || apiKey.length() > RequestParser.MAX_ID_LENGTH) {
            throw new BadRequest("an API key has 1 to " + RequestParser.MAX_ID_LENGTH + " characters; this one has "
                    + apiKey.length());
        }
        // A bad "at" is refused here, before the request is forwarded.
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
}

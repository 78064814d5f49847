package dev.quotaenforcer.http;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;

/** {@code /exceeded}: the latest quota-exceeded events of every instance, newest first. */
final class ExceededRoutes {

    private static final int DEFAULT_EVENTS = 50;

    private final Supplier<Attached> attached;
    private final KeyDisplay keys;

    ExceededRoutes(Supplier<Attached> attached, KeyDisplay keys) {
        this.attached = attached;
        this.keys = keys;
    }

    void register(RoutesConfig routes, BearerAuth auth) {
        routes.get("/exceeded", auth.protect(this::exceeded));
    }

    private void exceeded(Context ctx) throws IOException {
        Attached app = Attached.ready(ctx, attached);
        if (app == null) {
            return;
        }
        Answers.json(ctx, Map.of("events", app.exceeded().latest(RequestParameters.count(ctx, "limit", DEFAULT_EVENTS))
                .stream().map(keys::show).toList()));
    }
}

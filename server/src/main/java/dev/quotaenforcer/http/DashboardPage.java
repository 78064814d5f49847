package dev.quotaenforcer.http;

import io.javalin.config.RoutesConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The dashboard's page at {@code /}, the same static bytes for everyone. */
final class DashboardPage {

    private final byte[] page = resource("/dashboard/index.html");

    void register(RoutesConfig routes) {
        // Open: the page asks for a token when the API needs one, and sends it with each of its requests.
        routes.get("/", ctx -> ctx.contentType("text/html; charset=utf-8").result(page));
    }

    private static byte[] resource(String path) {
        try (InputStream in = DashboardPage.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.quotaenforcer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quotaenforcer.topology.JsonSerde;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The operator API's answers: a JSON body, or an RFC 9457 problem body for a request it does not answer as asked. */
final class Answers {

    private static final ObjectMapper JSON = JsonSerde.mapper();
    private static final String PROBLEM_JSON = "application/problem+json";

    private Answers() {
    }

    static void json(Context ctx, Object body) throws IOException {
        ctx.contentType("application/json").result(JSON.writeValueAsBytes(body));
    }

    /** A 503 the caller may retry in a second: the state it asks about is not here yet or is moving. */
    static void unavailable(Context ctx, String detail) {
        ctx.header("Retry-After", "1");
        problem(ctx, 503, detail);
    }

    /** An RFC 9457 problem answer. */
    static void problem(Context ctx, int status, String detail) {
        ObjectNode body = JSON.createObjectNode();
        body.put("type", "about:blank");
        body.put("title", switch (status) {
            case 400 -> "Bad request";
            case 401 -> "Unauthorized";
            case 404 -> "Not found";
            case 502 -> "Bad gateway";
            default -> "Service unavailable";
        });
        body.put("status", status);
        body.put("detail", detail);
        try {
            ctx.status(status).contentType(PROBLEM_JSON).result(JSON.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

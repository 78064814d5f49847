package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.runtime.Enforcer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every malformed or out-of-range parameter of the operator HTTP API gets 400 with an RFC 9457
 * problem body, never a 500: instants far outside the engine's range, numbers out of range, keys and
 * plan ids too long to be one, encoded paths, and a request line or query too large for the server.
 */
@ExtendWith(KafkaBroker.class)
class HttpApiBadRequestsIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path stateDir;

    @Test
    void malformedAndOutOfRangeParametersAreBadRequestsWithAProblemBody(TestCluster cluster) throws Exception {
        try (Enforcer enforcer = cluster.startWithBasicPlan(1, stateDir, "k-1")) {
            List<String> bad = List.of(
                    "/usage/k-1?at=%2B1000000000-12-31T23:59:59Z",
                    "/usage/k-1?at=-1000000000-01-01T00:00:00Z",
                    "/usage/k-1?at=0000-01-01T00:00:00Z",
                    "/usage/k-1?at=10000-01-01T00:00:00Z",
                    "/usage/k-1?at=yesterday",
                    "/usage/" + "k".repeat(300),
                    "/plans/basic/usage?hour=%2B1000000000-12-31T23:00:00Z",
                    "/plans/basic/usage?at=-999999999-01-01T00:00:00Z",
                    "/plans/basic/usage?limit=99999999999",
                    "/plans/basic/usage?limit=-1",
                    "/plans/" + "p".repeat(100) + "/usage",
                    "/plans/%2e%2e%2f%00/usage",
                    "/internal/top-keys/basic?at=%2B1000000000-12-31T23:59:59Z",
                    "/internal/plan-usage/basic?hour=99999-01-01T00:00:00Z",
                    "/exceeded?limit=0",
                    "/exceeded?limit=" + "9".repeat(40),
                    "/usage/k-1?at=2026-11-30T10:00:00Z&x=" + "y".repeat(20_000),
                    "/usage/" + "k".repeat(70_000));
            List<String> failures = new ArrayList<>();
            for (String path : bad) {
                HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + enforcer.httpPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
                String contentType = answer.headers().firstValue("Content-Type").orElse("");
                if (answer.statusCode() != 400 || !contentType.startsWith("application/problem+json")
                        || !answer.body().contains("\"status\":400")) {
                    failures.add(abbreviated(path) + " -> " + answer.statusCode() + " " + contentType + " "
                            + abbreviated(answer.body()));
                }
            }
            assertEquals(List.of(), failures);
            assertEquals(200, HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + enforcer.httpPort()
                    + "/usage/k-1?at=2026-11-30T10:00:00Z")).build(), HttpResponse.BodyHandlers.ofString()).statusCode(),
                    "a good request still answers");
        }
    }

    private static String abbreviated(String text) {
        return text.length() <= 120 ? text : text.substring(0, 117) + "...";
    }
}

package dev.quotaenforcer.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Which routes of the operator API need a bearer token, on a real server before any Kafka Streams
 * is attached (so a route that lets a caller through answers 503, one that does not 401).
 */
class OperatorServerAuthTest {

    private static final String TOKEN = "operator-token-0123456789";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final List<String> PROTECTED = List.of("/metrics", "/usage/k-1", "/plans", "/plans/basic/usage",
            "/exceeded", "/internal/plan-usage/basic", "/internal/top-keys/basic");

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger httpLogs = (Logger) LoggerFactory.getLogger("dev.quotaenforcer.http");
    private final PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private Level level;

    @BeforeEach
    void captureLogs() {
        level = httpLogs.getLevel();
        httpLogs.setLevel(Level.DEBUG);
        logged.start();
        httpLogs.addAppender(logged);
    }

    @AfterEach
    void releaseLogs() {
        httpLogs.detachAppender(logged);
        httpLogs.setLevel(level);
    }

    @Test
    void everyRouteButTheProbesAndThePageRefusesACallerWithoutAValidToken() throws Exception {
        try (OperatorServer server = start(AccessTokens.parse("ops:" + TOKEN, "tokens.txt"))) {
            List<String> failures = new ArrayList<>();
            for (String path : PROTECTED) {
                for (String authorization : new String[] {null, "Bearer wrong-token-0123456789", "Basic " + TOKEN,
                        "Bearer " + TOKEN + "x", "Bearer"}) {
                    HttpResponse<String> answer = get(server, path, authorization);
                    String challenge = answer.headers().firstValue("WWW-Authenticate").orElse("");
                    if (answer.statusCode() != 401 || !challenge.startsWith("Bearer realm=\"quota-enforcer\"")
                            || !answer.headers().firstValue("Content-Type").orElse("").equals("application/problem+json")
                            || !answer.body().contains("\"status\":401")) {
                        failures.add(path + " with " + authorization + " -> " + answer.statusCode() + " " + challenge);
                    }
                }
                for (String authorization : new String[] {"Bearer " + TOKEN, "bearer  " + TOKEN}) {
                    int status = get(server, path, authorization).statusCode();
                    if (status == 401) {
                        failures.add(path + " with " + authorization + " -> 401");
                    }
                }
            }
            for (String open : List.of("/", "/health", "/health/live", "/health/ready")) {
                int status = get(server, open, null).statusCode();
                if (status == 401) {
                    failures.add(open + " without a token -> 401");
                }
            }
            assertEquals(List.of(), failures);
            assertEquals("Bearer realm=\"quota-enforcer\", error=\"invalid_token\"", get(server, "/plans",
                    "Bearer wrong-token-0123456789").headers().firstValue("WWW-Authenticate").orElse(""));
            assertEquals(200, get(server, "/metrics", "Bearer " + TOKEN).statusCode());
            assertTrue(get(server, "/metrics", "Bearer " + TOKEN).body()
                    .contains("quota_http_unauthorized_total{reason=\"invalid\"}"), "refusals are counted");
        }
        assertTrue(logged.list.stream().anyMatch(e -> e.getFormattedMessage().contains("by ops")),
                "an admitted request is logged with the token's name");
        assertTrue(logged.list.stream().noneMatch(e -> e.getFormattedMessage().contains(TOKEN)),
                "no log line holds the token");
        assertTrue(logged.list.stream().noneMatch(e -> e.getLevel() == Level.WARN));
    }

    @Test
    void withoutTokensEveryRouteIsOpenAndTheStartWarnsSo() throws Exception {
        try (OperatorServer server = start(null)) {
            for (String path : PROTECTED) {
                assertNotEquals(401, get(server, path, null).statusCode(), path);
            }
        }
        assertTrue(logged.list.stream().anyMatch(e -> e.getLevel() == Level.WARN
                && e.getFormattedMessage().contains("unauthenticated")
                && e.getFormattedMessage().contains("quota.http.auth.tokens.file")), logged.list.toString());
    }

    private OperatorServer start(AccessTokens tokens) {
        return OperatorServer.start("127.0.0.1", 0, metrics, Clock.systemUTC(), null, tokens, false);
    }

    private static HttpResponse<String> get(OperatorServer server, String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}

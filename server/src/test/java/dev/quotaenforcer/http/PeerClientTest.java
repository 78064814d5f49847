package dev.quotaenforcer.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What one instance relays of another's answer, against a real HTTP server on loopback. */
class PeerClientTest {

    private static final int MAX_BYTES = 1024;
    private static final Duration TIMEOUT = Duration.ofMillis(1500);

    private final CountDownLatch release = new CountDownLatch(1);
    private HttpServer server;
    private final PeerClient client = new PeerClient(TIMEOUT, MAX_BYTES);

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/json", exchange -> answer(exchange, 200, "application/json; charset=utf-8", "{\"a\":1}"));
        server.createContext("/problem", exchange -> answer(exchange, 404, "application/problem+json", "{\"status\":404}"));
        server.createContext("/html", exchange -> answer(exchange, 200, "text/html", "<script>alert(1)</script>"));
        server.createContext("/jsonp", exchange -> answer(exchange, 200, "application/jsonp", "{}"));
        server.createContext("/untyped", exchange -> answer(exchange, 200, null, "{}"));
        server.createContext("/redirect", exchange -> {
            exchange.getResponseHeaders().add("Location", "http://example.com/");
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        server.createContext("/large", exchange -> answer(exchange, 200, "application/json", "[" + "0,".repeat(MAX_BYTES) + "0]"));
        server.createContext("/large-chunked", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream body = exchange.getResponseBody()) {
                for (int i = 0; i < MAX_BYTES; i++) {
                    body.write("0,".getBytes(StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                // The client stopped reading, as it should.
            }
        });
        server.createContext("/slow", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write('[');
                body.flush();
                release.await(30, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException e) {
                // The client gave up, as it should.
            }
        });
        server.createContext("/headers", exchange -> answer(exchange, 200, "application/json",
                "\"" + exchange.getRequestHeaders().getFirst("Authorization") + "\""));
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
    }

    @AfterEach
    void stopServer() {
        release.countDown();
        server.stop(0);
    }

    @Test
    void aJsonAnswerIsRelayedWithItsStatusAndNormalizedType() throws Exception {
        PeerClient.Answer answer = client.get(uri("/json"));

        assertEquals(200, answer.status());
        assertEquals("application/json", answer.contentType());
        assertArrayEquals("{\"a\":1}".getBytes(StandardCharsets.UTF_8), answer.body());
    }

    @Test
    void aProblemAnswerIsRelayedAsAProblem() throws Exception {
        PeerClient.Answer answer = client.get(uri("/problem"));

        assertEquals(404, answer.status());
        assertEquals("application/problem+json", answer.contentType());
    }

    @Test
    void theHeadersGivenAreSent() throws Exception {
        PeerClient.Answer answer = client.get(uri("/headers"), "Authorization", "Bearer abc");

        assertEquals("\"Bearer abc\"", new String(answer.body(), StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource({"/html, text/html", "/jsonp, application/jsonp", "/untyped, none", "/redirect, none"})
    void anAnswerOfAnotherTypeIsNotRelayed(String path, String named) {
        PeerClient.Unrelayable e = assertThrows(PeerClient.Unrelayable.class, () -> client.get(uri(path)));

        assertTrue(e.getMessage().contains(named), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"/large", "/large-chunked"})
    void anAnswerLargerThanTheBoundIsNotRelayed(String path) {
        PeerClient.Unrelayable e = assertThrows(PeerClient.Unrelayable.class, () -> client.get(uri(path)));

        assertTrue(e.getMessage().contains("larger than " + MAX_BYTES), e.getMessage());
    }

    @Test
    void anAnswerThatDoesNotEndWithinTheTimeoutIsNotRelayed() {
        long started = System.nanoTime();
        PeerClient.Unrelayable e = assertThrows(PeerClient.Unrelayable.class, () -> client.get(uri("/slow")));

        assertTrue(e.getMessage().contains("within " + TIMEOUT.toMillis() + " ms"), e.getMessage());
        assertTrue(System.nanoTime() - started < TIMEOUT.multipliedBy(3).toNanos(), "given up near the timeout");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "application/json                  | application/json",
            "Application/JSON ; charset=UTF-8  | application/json",
            "application/problem+json          | application/problem+json"})
    void jsonMediaTypesAreRelayed(String header, String type) {
        assertEquals(type, PeerClient.relayedType(header));
    }

    @ParameterizedTest
    @CsvSource({"text/html", "application/json-seq", "application/javascript", "'text/html, application/json'", "''"})
    void otherMediaTypesAreNot(String header) {
        assertNull(PeerClient.relayedType(header));
    }

    @Test
    void noMediaTypeIsNot() {
        assertNull(PeerClient.relayedType(null));
    }

    private URI uri(String path) {
        return URI.create("http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort() + path);
    }

    private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (type != null) {
            exchange.getResponseHeaders().add("Content-Type", type);
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}

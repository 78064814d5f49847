package dev.quotaenforcer.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real headless Chromium (Debian's {@code chromium}) driven over the Chrome DevTools Protocol with
 * the JDK's WebSocket client: navigate to a page and evaluate JavaScript in it.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/bin/chromium");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    private HeadlessChromium(Process process, WebSocket socket) {
        this.process = process;
        this.socket = socket;
    }

    static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    /** Starts Chromium with a profile in {@code profileDir} and attaches to its first page. */
    static HeadlessChromium start(Path profileDir, Path log) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(BINARY.toString(), "--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--disable-background-networking", "--disable-extensions", "--no-first-run",
                "--no-default-browser-check", "--remote-allow-origins=*", "--remote-debugging-port=0",
                "--user-data-dir=" + profileDir, "about:blank")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            // Chromium writes the port it picked into the profile directory once DevTools listens.
            Path portFile = profileDir.resolve("DevToolsActivePort");
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!Files.exists(portFile) || Files.readAllLines(portFile).isEmpty()) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new IOException("Chromium did not open DevTools (exit " + (process.isAlive() ? "none" : process.exitValue())
                            + "); its output: " + Files.readString(log));
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
            int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
            HttpClient http = HttpClient.newHttpClient();
            JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body());
            String pageSocket = null;
            for (JsonNode target : targets) {
                if ("page".equals(target.get("type").asText())) {
                    pageSocket = target.get("webSocketDebuggerUrl").asText();
                    break;
                }
            }
            if (pageSocket == null) {
                throw new IOException("Chromium has no page target: " + targets);
            }
            HeadlessChromium[] self = new HeadlessChromium[1];
            WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(pageSocket), new WebSocket.Listener() {
                private final StringBuilder message = new StringBuilder();

                @Override
                public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                    message.append(data);
                    if (last) {
                        self[0].received(message.toString());
                        message.setLength(0);
                    }
                    webSocket.request(1);
                    return null;
                }
            }).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            self[0] = new HeadlessChromium(process, socket);
            return self[0];
        } catch (IOException | InterruptedException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IOException("cannot connect to Chromium's DevTools", e);
        }
    }

    private void received(String text) {
        try {
            JsonNode message = JSON.readTree(text);
            if (message.has("id")) {
                CompletableFuture<JsonNode> answer = pending.remove(message.get("id").asInt());
                if (answer != null) {
                    answer.complete(message);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("unreadable DevTools message: " + text, e);
        }
    }

    private JsonNode call(String method, Map<String, Object> params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode request = JSON.createObjectNode().put("id", id).put("method", method);
        request.set("params", JSON.valueToTree(params));
        socket.sendText(JSON.writeValueAsString(request), true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        JsonNode message = answer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        if (message.has("error")) {
            throw new IllegalStateException(method + " failed: " + message.get("error"));
        }
        return message.get("result");
    }

    void navigate(String url) throws Exception {
        call("Page.navigate", Map.of("url", url));
    }

    /** The value of a JavaScript expression in the page, as a string (null when it is undefined or null). */
    String evaluate(String expression) throws Exception {
        JsonNode result = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true)).get("result");
        if (result.has("subtype") && "error".equals(result.get("subtype").asText())) {
            throw new IllegalStateException("script error: " + result.get("description"));
        }
        JsonNode value = result.get("value");
        return value == null || value.isNull() ? null : value.asText();
    }

    /** The text of every element matching a CSS selector, in document order. */
    List<String> texts(String selector) throws Exception {
        String json = evaluate("JSON.stringify([...document.querySelectorAll(" + JSON.writeValueAsString(selector)
                + ")].map(e => e.textContent))");
        return List.of(JSON.readValue(json, String[].class));
    }

    @Override
    public void close() throws InterruptedException {
        socket.abort();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}

package dev.quotaenforcer.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks another instance's API over HTTP and takes only what may be relayed to a caller: a JSON or
 * problem+json answer of bounded size within a bounded time. Redirects are not followed.
 */
final class PeerClient {

    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";

    private final Duration timeout;
    private final int maxBytes;
    private final HttpClient http;

    PeerClient(Duration timeout, int maxBytes) {
        this.timeout = timeout;
        this.maxBytes = maxBytes;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** An answer fit to relay; {@code contentType} is one of {@link #JSON} and {@link #PROBLEM_JSON}. */
    record Answer(int status, String contentType, byte[] body) {
    }

    /** An answer that is not relayed (wrong type, too large, too slow); the message says which. */
    static final class Unrelayable extends Exception {
        Unrelayable(String message) {
            super(message);
        }
    }

    /**
     * GET {@code uri} with {@code headers} (name, value, name, value...).
     *
     * @throws IOException  when the peer cannot be reached
     * @throws Unrelayable  when it answered something that is not passed on
     */
    Answer get(URI uri, String... headers) throws IOException, InterruptedException, Unrelayable {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).GET();
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        CompletableFuture<HttpResponse<byte[]>> sent = http.sendAsync(request.build(), this::bounded);
        HttpResponse<byte[]> response;
        try {
            // The request's own timeout ends at the response's headers; this bounds the body too.
            response = sent.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            sent.cancel(true);
            throw new Unrelayable("no whole answer within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (cause instanceof TooLarge) {
                    throw new Unrelayable(cause.getMessage());
                }
            }
            if (e.getCause() instanceof HttpTimeoutException && !(e.getCause() instanceof HttpConnectTimeoutException)) {
                throw new Unrelayable("no answer within " + timeout.toMillis() + " ms");
            }
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        String type = relayedType(response.headers().firstValue("Content-Type").orElse(null));
        if (type == null) {
            throw new Unrelayable("an answer of HTTP " + response.statusCode() + " with Content-Type "
                    + response.headers().firstValue("Content-Type").map(PeerClient::quoted).orElse("none")
                    + ", which is not relayed (only " + JSON + " and " + PROBLEM_JSON + ")");
        }
        return new Answer(response.statusCode(), type, response.body());
    }

    /**
     * {@link #JSON} or {@link #PROBLEM_JSON} when a Content-Type header is that media type (any
     * parameters, such as a charset, aside); null for any other, or none.
     */
    static String relayedType(String contentType) {
        if (contentType == null) {
            return null;
        }
        int parameters = contentType.indexOf(';');
        String type = (parameters < 0 ? contentType : contentType.substring(0, parameters)).strip().toLowerCase(Locale.ROOT);
        return type.equals(JSON) ? JSON : type.equals(PROBLEM_JSON) ? PROBLEM_JSON : null;
    }

    /** The body, unless the answer is not relayable: then it is not read at all. */
    private HttpResponse.BodySubscriber<byte[]> bounded(HttpResponse.ResponseInfo info) {
        if (relayedType(info.headers().firstValue("Content-Type").orElse(null)) == null) {
            return HttpResponse.BodySubscribers.replacing(null);
        }
        return new BoundedBody(maxBytes);
    }

    private static String quoted(String value) {
        return "'" + (value.length() <= 80 ? value : value.substring(0, 77) + "...") + "'";
    }

    /** A body refused for its size. */
    private static final class TooLarge extends IOException {
        TooLarge(int maxBytes) {
            super("an answer larger than " + maxBytes + " bytes");
        }
    }

    /** Collects a body of up to {@code maxBytes}, failing (and cancelling the rest) past that. */
    private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {

        private final int maxBytes;
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private final List<ByteBuffer> received = new ArrayList<>();
        private Flow.Subscription subscription;
        private int size;

        BoundedBody(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (body.isDone()) {
                return;
            }
            for (ByteBuffer buffer : buffers) {
                size += buffer.remaining();
                received.add(buffer);
            }
            if (size > maxBytes) {
                subscription.cancel();
                received.clear();
                body.completeExceptionally(new TooLarge(maxBytes));
            }
        }

        @Override
        public void onError(Throwable error) {
            body.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            if (body.isDone()) {
                return;
            }
            byte[] bytes = new byte[size];
            int at = 0;
            for (ByteBuffer buffer : received) {
                int length = buffer.remaining();
                buffer.get(bytes, at, length);
                at += length;
            }
            body.complete(bytes);
        }
    }
}

package dev.quotaenforcer.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own error answers (a request it cannot parse or route: an ambiguous or oversize URI, headers
 * too large) in the API's shape, an RFC 9457 problem body, instead of Jetty's HTML page; a request the
 * server refuses before it reaches a route is the client's error, 400.
 */
final class ProblemErrorHandler extends ErrorHandler {

    private static final String PROBLEM_JSON = "application/problem+json";

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        int status = code >= 400 && code < 500 ? 400 : code;
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, PROBLEM_JSON);
        response.write(true, ByteBuffer.wrap(body(status, message)), callback);
    }

    private static byte[] body(int status, String detail) {
        String text = detail == null ? "the server could not read this request" : detail;
        return ("{\"type\":\"about:blank\",\"title\":\"" + (status < 500 ? "Bad request" : "Server error") + "\",\"status\":"
                + status + ",\"detail\":\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }
}

package dev.quotaenforcer.http;

import dev.quotaenforcer.event.RequestParser;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Reads the operator API's query parameters and times; a value it cannot read is a {@link BadRequest},
 * which the server answers 400 with a problem body naming the parameter.
 */
final class RequestParameters {

    /** The most a list asks for, or holds: top keys, quota-exceeded events. */
    static final int MAX_LIST = 1000;
    private static final int MAX_PATH_OR_QUERY = 4096;
    private static final Instant LATEST = Instant.ofEpochMilli(RequestParser.MAX_TIMESTAMP);

    private RequestParameters() {
    }

    /** A request the API cannot answer as asked; the message says which parameter and why. */
    static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message);
        }
    }

    /** No valid path or query comes near this: a longer one is refused before any route reads it. */
    static void requireModestSize(Context ctx) {
        String query = ctx.queryString();
        if (ctx.path().length() > MAX_PATH_OR_QUERY || (query != null && query.length() > MAX_PATH_OR_QUERY)) {
            throw new BadRequest("a path or query of " + Math.max(ctx.path().length(), query == null ? 0 : query.length())
                    + " characters; at most " + MAX_PATH_OR_QUERY + " are read");
        }
    }

    static Instant instant(Context ctx, String parameter, Instant otherwise) {
        String value = ctx.queryParam(parameter);
        if (value == null) {
            return otherwise;
        }
        Instant instant;
        try {
            instant = Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new BadRequest("query parameter " + parameter + "=" + RequestParser.abbreviate(value)
                    + " is not an ISO-8601 instant such as 2026-11-30T10:00:00Z");
        }
        if (instant.isBefore(Instant.EPOCH) || instant.isAfter(LATEST)) {
            throw new BadRequest("query parameter " + parameter + "=" + value + " is outside " + Instant.EPOCH + " to "
                    + LATEST + ", the times requests are decided in");
        }
        return instant;
    }

    static int count(Context ctx, String parameter, int otherwise) {
        String value = ctx.queryParam(parameter);
        if (value == null) {
            return otherwise;
        }
        try {
            int count = Integer.parseInt(value);
            if (count >= 1 && count <= MAX_LIST) {
                return count;
            }
        } catch (NumberFormatException e) {
            // Answered below, as for a number out of range.
        }
        throw new BadRequest("query parameter " + parameter + "=" + RequestParser.abbreviate(value)
                + " must be a whole number from 1 to " + MAX_LIST);
    }

    /** The clock's time to the millisecond, the precision decisions are made in. */
    static Instant now(Clock clock) {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    static Instant hourOf(Instant time) {
        return time.truncatedTo(ChronoUnit.HOURS);
    }
}

package dev.quotaenforcer.http;

import dev.quotaenforcer.event.RequestParser;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Guards routes of the operator API with a bearer token (RFC 6750) from {@link AccessTokens}; with
 * no tokens configured it lets everything through. Refusals are counted, never logged with the token.
 */
final class BearerAuth {

    private static final Logger LOG = LoggerFactory.getLogger(BearerAuth.class);
    private static final String SCHEME = "Bearer ";
    private static final String CHALLENGE = "Bearer realm=\"quota-enforcer\"";
    /** The challenge of a 401 for a token that was presented but not accepted (RFC 6750 section 3). */
    static final String INVALID_TOKEN_CHALLENGE = CHALLENGE + ", error=\"invalid_token\"";

    private final AccessTokens tokens;
    private final Counter missing;
    private final Counter invalid;

    /** @param tokens the accepted tokens, or null to leave the API open */
    BearerAuth(AccessTokens tokens, MeterRegistry metrics) {
        this.tokens = tokens;
        this.missing = refusals(metrics, "missing");
        this.invalid = refusals(metrics, "invalid");
    }

    private static Counter refusals(MeterRegistry metrics, String reason) {
        return Counter.builder("quota.http.unauthorized").tag("reason", reason)
                .description("operator API requests refused for want of a valid bearer token").register(metrics);
    }

    boolean enabled() {
        return tokens != null;
    }

    /** {@code handler}, answered only for a caller with a valid token (when tokens are configured). */
    Handler protect(Handler handler) {
        if (tokens == null) {
            return handler;
        }
        return ctx -> {
            if (admitted(ctx)) {
                handler.handle(ctx);
            }
        };
    }

    private boolean admitted(Context ctx) {
        String presented = tokenOf(ctx.header("Authorization"));
        String caller = tokens.callerOf(presented);
        if (caller != null) {
            LOG.debug("{} {} by {}", ctx.method(), RequestParser.abbreviate(ctx.path()), caller);
            return true;
        }
        (presented == null ? missing : invalid).increment();
        LOG.debug("Refused {} {} from {}: {}", ctx.method(), RequestParser.abbreviate(ctx.path()), ctx.ip(),
                presented == null ? "no bearer token" : "a token that is not in " + tokens.source());
        ctx.header("WWW-Authenticate", presented == null ? CHALLENGE : INVALID_TOKEN_CHALLENGE);
        Answers.problem(ctx, 401, presented == null
                ? "this endpoint needs an Authorization: Bearer <token> header (a token of quota.http.auth.tokens.file)"
                : "the bearer token is not one this instance accepts");
        return false;
    }

    /** The token of a {@code Bearer} Authorization header; null when there is none or another scheme. */
    static String tokenOf(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return null;
        }
        return authorization.substring(SCHEME.length()).strip();
    }

    /**
     * The caller's credentials for a request sent on to another instance on its behalf, so that the
     * other checks them too: a well-formed bearer token, or null (sent on without).
     */
    static String credentials(Context ctx) {
        String token = tokenOf(ctx.header("Authorization"));
        return token != null && AccessTokens.isWellFormed(token) ? SCHEME + token : null;
    }
}

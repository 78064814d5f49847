package dev.quotaenforcer.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.topology.JsonSerde;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.List;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Sends a caller's request on to other instances, with the caller's credentials (see {@link InstanceRouter}):
 * relayed whole from the instance that owns what it asks about, or asked of each instance for a JSON part.
 */
final class Forwarding {

    private static final ObjectMapper JSON = JsonSerde.mapper();

    private Forwarding() {
    }

    /**
     * Relays another instance's answer to the same request, with the caller's credentials; a request
     * already forwarded is not sent on. An answer that is not JSON, too large or too slow is 502.
     */
    static void forward(Context ctx, InstanceRouter router, HostInfo owner) throws IOException, InterruptedException {
        if (ctx.header(InstanceRouter.FORWARDED_HEADER) != null) {
            Answers.unavailable(ctx, "ownership moved while the request was forwarded");
            return;
        }
        String query = ctx.queryString() == null ? "" : "?" + ctx.queryString();
        PeerClient.Answer answer;
        try {
            answer = router.get(owner, ctx.path() + query, BearerAuth.credentials(ctx));
        } catch (IOException e) {
            Answers.unavailable(ctx, "instance " + InstanceRouter.name(owner) + " owns the key but did not answer: " + e);
            return;
        } catch (PeerClient.Unrelayable | InstanceRouter.NotAMember e) {
            Answers.problem(ctx, 502, "not relayed from instance " + InstanceRouter.name(owner) + ": " + e.getMessage());
            return;
        }
        if (answer.status() == 401) {
            // This instance took the caller's token, the owner did not: their token files differ.
            ctx.header("WWW-Authenticate", BearerAuth.INVALID_TOKEN_CHALLENGE);
        }
        ctx.status(answer.status()).contentType(answer.contentType()).result(answer.body());
    }

    /** Another instance's JSON answer, or null (the instance noted as unreachable) when it gave none. */
    static <T> T ask(Context ctx, InstanceRouter router, HostInfo host, String pathAndQuery, Class<T> type,
                     List<String> unreachable) throws InterruptedException {
        try {
            PeerClient.Answer answer = router.get(host, pathAndQuery, BearerAuth.credentials(ctx));
            if (answer.status() == 200) {
                return JSON.readValue(answer.body(), type);
            }
            unreachable.add(InstanceRouter.name(host) + " (HTTP " + answer.status() + ")");
        } catch (IOException e) {
            unreachable.add(InstanceRouter.name(host) + " (" + e + ")");
        } catch (PeerClient.Unrelayable | InstanceRouter.NotAMember e) {
            unreachable.add(InstanceRouter.name(host) + " (" + e.getMessage() + ")");
        }
        return null;
    }
}

package dev.quotaenforcer.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.quotaenforcer.it.KafkaBroker;
import dev.quotaenforcer.it.TestCluster;
import dev.quotaenforcer.runtime.Enforcer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The router of a running enforcer sends a caller's request, and token, only to members of its group. */
@ExtendWith(KafkaBroker.class)
class InstanceRouterIT {

    private static final String AUTHORIZATION = "Bearer alice-token-0123456789abcdef";

    @Test
    void aHostThatIsNotTheApplicationServerOfAGroupMemberIsNeverSentTheRequest(TestCluster cluster, @TempDir Path dir)
            throws Exception {
        AtomicInteger strangerRequests = new AtomicInteger();
        HttpServer stranger = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        stranger.createContext("/", exchange -> {
            strangerRequests.incrementAndGet();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        stranger.start();
        try (Enforcer enforcer = cluster.startWithBasicPlan(1, dir, "k-1")) {
            HostInfo member = new HostInfo("localhost", enforcer.httpPort());
            InstanceRouter router = new InstanceRouter(enforcer.streams(), member);

            for (HostInfo other : new HostInfo[] {new HostInfo("localhost", stranger.getAddress().getPort()),
                    new HostInfo("127.0.0.1", stranger.getAddress().getPort()),
                    new HostInfo("127.0.0.1", enforcer.httpPort())}) {
                InstanceRouter.NotAMember refused = assertThrows(InstanceRouter.NotAMember.class,
                        () -> router.get(other, "/usage/k-1", AUTHORIZATION));
                assertTrue(refused.getMessage().contains(InstanceRouter.name(other)), refused.getMessage());
            }
            assertEquals(0, strangerRequests.get(), "the stranger was sent nothing, so no token either");
            assertEquals(200, router.get(member, "/health", AUTHORIZATION).status(), "a member is asked");
        } finally {
            stranger.stop(0);
        }
    }
}

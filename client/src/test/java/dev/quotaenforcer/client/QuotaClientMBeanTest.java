package dev.quotaenforcer.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** A QuotaClient's counts as JMX shows them to a gateway's exporter, under a name of its own. */
class QuotaClientMBeanTest {

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    /** Nothing listens on port 1: no metadata ever comes, so each check is answered by the failure policy at once. */
    private static final String NO_BROKER = "localhost:1";

    private static QuotaClient client(String clientId) {
        Map<String, Object> settings = clientId == null ? Map.of("bootstrap.servers", NO_BROKER)
                : Map.of("bootstrap.servers", NO_BROKER, "client.id", clientId);
        return new QuotaClient(settings, QuotaClient.Options.builder().replyPartition(0).timeout(Duration.ofMillis(50))
                .build(), Clock.systemUTC());
    }

    private static ObjectName name(String client) throws MalformedObjectNameException {
        return new ObjectName("dev.quotaenforcer:type=QuotaClient,client=" + client);
    }

    private static Set<ObjectName> registered() throws Exception {
        return JMX.queryNames(new ObjectName("dev.quotaenforcer:type=QuotaClient,*"), null);
    }

    @Test
    void countsChecksAndFailurePolicyAnswersUnderItsClientIdAndLeavesJmxOnClose() throws Exception {
        ObjectName name = name("gateway-7");
        try (QuotaClient client = client("gateway-7")) {
            assertTrue(JMX.isRegistered(name), registered().toString());
            assertEquals(0L, JMX.getAttribute(name, "Checks"));
            for (int i = 0; i < 3; i++) {
                assertTrue(client.check("k-1", 1, "r-" + i).join().byFailurePolicy());
            }
            assertEquals(3L, JMX.getAttribute(name, "Checks"));
            assertEquals(3L, JMX.getAttribute(name, "DecidedByFailurePolicy"));
            assertEquals(0L, JMX.getAttribute(name, "MismatchedReplies"));
            assertEquals(client.decidedByFailurePolicy(), JMX.getAttribute(name, "DecidedByFailurePolicy"));
        }
        assertFalse(JMX.isRegistered(name), "closed clients leave JMX");
    }

    @Test
    void clientsWithoutAnIdOrSharingOneGetNamesOfTheirOwn() throws Exception {
        Set<ObjectName> before = registered();
        try (QuotaClient first = client(null); QuotaClient second = client(null);
                QuotaClient shared = client("edge"); QuotaClient sharedToo = client("edge")) {
            Set<ObjectName> added = registered();
            added.removeAll(before);
            assertEquals(4, added.size(), added.toString());
            ObjectName edge = name("edge");
            assertTrue(added.contains(edge), added.toString());
            assertTrue(added.stream().filter(n -> !n.equals(edge))
                    .allMatch(n -> n.getKeyProperty("client").matches("(quota-client|edge)-\\d+")), added.toString());
            first.check("k-1", 1, "r-1").join();
            ObjectName[] names = added.toArray(ObjectName[]::new);
            long total = 0;
            for (ObjectName n : names) {
                total += (Long) JMX.getAttribute(n, "Checks");
            }
            assertEquals(1, total, "each client counts only its own checks");
        }
        assertEquals(before, registered());
    }

    @Test
    void aClientIdIsMadeSafeForAnObjectNameAndAPrometheusLabel() throws Exception {
        try (QuotaClient unsafe = client("gw \"eu\",west=1")) {
            assertTrue(JMX.isRegistered(name("gw__eu__west_1")), registered().toString());
        }
    }
}

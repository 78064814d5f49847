package dev.quotaenforcer.client;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.CommonClientConfigs;

/** Registers a client's counters in the platform MBean server under a name no other client in the JVM holds. */
final class ClientMBeans {

    private static final String DOMAIN = "dev.quotaenforcer";
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /** What an ObjectName value may hold unquoted, and a Prometheus label value without escaping. */
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");
    private static final System.Logger LOG = System.getLogger(ClientMBeans.class.getName());

    private ClientMBeans() {
    }

    /**
     * Registers {@code bean} as {@code dev.quotaenforcer:type=TYPE,client=ID}, ID being the Kafka settings'
     * {@code client.id} (or {@code quota-client-N}) made unique within the JVM. Returns the name, or null when
     * JMX refused it: counting goes on, only the export is lost, and the gateway's log says so.
     */
    static ObjectName register(String type, Map<String, Object> kafkaSettings, Object bean) {
        Object clientId = kafkaSettings.get(CommonClientConfigs.CLIENT_ID_CONFIG);
        String id = clientId == null || clientId.toString().isBlank() ? "quota-client-" + SEQUENCE.incrementAndGet()
                : UNSAFE.matcher(clientId.toString()).replaceAll("_");
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String candidate = id;
        try {
            while (true) {
                ObjectName name = new ObjectName(DOMAIN + ":type=" + type + ",client=" + candidate);
                try {
                    server.registerMBean(bean, name);
                    return name;
                } catch (InstanceAlreadyExistsException taken) {
                    candidate = id + "-" + SEQUENCE.incrementAndGet();
                }
            }
        } catch (JMException | SecurityException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot register " + type + " " + candidate + " with JMX; its counts stay "
                    + "readable from the client only", e);
            return null;
        }
    }

    static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot unregister " + name + " from JMX", e);
        }
    }
}

package dev.quotaenforcer.bench;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.common.Node;

/** What topics take on the brokers' disks, as the brokers report their log directories. */
final class BrokerLogs {

    private BrokerLogs() {
    }

    /** Bytes of each of {@code topics}' partitions summed by topic: record batches, their headers and transaction markers. */
    static Map<String, Long> bytes(Admin admin, Collection<String> topics) throws Exception {
        List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
        Map<String, Long> bytes = new HashMap<>();
        for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions().get().values()) {
            for (LogDirDescription dir : dirs.values()) {
                dir.replicaInfos().forEach((partition, replica) -> {
                    if (topics.contains(partition.topic())) {
                        bytes.merge(partition.topic(), replica.size(), Long::sum);
                    }
                });
            }
        }
        return bytes;
    }
}

package dev.quotaenforcer.it;

import dev.quotaenforcer.client.QuotaClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * A gateway process whose checks nobody decides: its QuotaClient asks on a requests topic no enforcer
 * reads, so the failure policy answers every check. MonitoringIT runs it under the JMX exporter.
 * Arguments: bootstrap servers, requests topic, reply topic. Runs until killed.
 */
public final class UnansweredGateway {

    private UnansweredGateway() {
    }

    public static void main(String[] args) throws InterruptedException {
        QuotaClient.Options options = QuotaClient.Options.builder().requestsTopic(args[1]).replyTopic(args[2])
                .replyPartition(0).timeout(Duration.ofMillis(100)).build();
        try (QuotaClient client = new QuotaClient(Map.of("bootstrap.servers", args[0], "client.id", "unanswered-gateway"),
                options, Clock.systemUTC())) {
            for (long i = 0; ; i++) {
                client.check("gateway-key", 1, "gateway-" + i).join();
                Thread.sleep(100);
            }
        }
    }
}

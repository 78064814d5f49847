package dev.quotaenforcer.http;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Finds, from Kafka Streams' metadata, which instance owns a key of a store, and asks other
 * instances over HTTP: only current members of the application's group, with the caller's
 * credentials, so that the other instance checks them too. A forwarded request carries a header so
 * it is never forwarded again: when ownership moves mid-request the answer is 503, not a loop.
 */
final class InstanceRouter {

    /** Marks a request one instance sent another on a caller's behalf. */
    static final String FORWARDED_HEADER = "X-Quota-Forwarded";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** Far more than the largest answer: a thousand top keys of the longest API keys. */
    private static final int MAX_ANSWER_BYTES = 8 * 1024 * 1024;

    private final KafkaStreams streams;
    private final HostInfo self;
    private final PeerClient peers = new PeerClient(TIMEOUT, MAX_ANSWER_BYTES);

    InstanceRouter(KafkaStreams streams, HostInfo self) {
        this.streams = streams;
        this.self = self;
    }

    /** A request not sent: its target is not a member of the application's group now. */
    static final class NotAMember extends Exception {
        NotAMember(HostInfo host) {
            super(name(host) + " is not the application.server of any current member of the group");
        }
    }

    /** Where a key's partition of a store is active. */
    record Owner(HostInfo host, int partition, boolean local) {
    }

    /** The owner of {@code key} in {@code store}, or null while no instance has it (starting, rebalancing). */
    Owner owner(String store, String key) {
        KeyQueryMetadata metadata = streams.queryMetadataForKey(store, key, Serdes.String().serializer());
        if (metadata == null || KeyQueryMetadata.NOT_AVAILABLE.equals(metadata)) {
            return null;
        }
        return new Owner(metadata.activeHost(), metadata.partition(), metadata.activeHost().equals(self));
    }

    /** Every other instance of the application that holds partitions of {@code store}. */
    List<HostInfo> others(String store) {
        return streams.streamsMetadataForStore(store).stream()
                .map(StreamsMetadata::hostInfo)
                .filter(host -> !host.equals(self))
                .distinct()
                .toList();
    }

    String self() {
        return name(self);
    }

    static String name(HostInfo host) {
        return host.host() + ":" + host.port();
    }

    /**
     * GET {@code pathAndQuery} from another instance, with the caller's {@code authorization} (null:
     * none). The caller's own request never names the target; this checks it anyway, against the
     * group's members as Kafka Streams knows them, so that no path leads a caller's token elsewhere.
     */
    PeerClient.Answer get(HostInfo host, String pathAndQuery, String authorization)
            throws IOException, InterruptedException, PeerClient.Unrelayable, NotAMember {
        if (!isMember(host, streams.metadataForAllStreamsClients())) {
            throw new NotAMember(host);
        }
        URI uri = URI.create("http://" + name(host) + pathAndQuery);
        return authorization == null ? peers.get(uri, FORWARDED_HEADER, self())
                : peers.get(uri, FORWARDED_HEADER, self(), "Authorization", authorization);
    }

    private static boolean isMember(HostInfo host, Collection<StreamsMetadata> members) {
        return members.stream().anyMatch(member -> member.hostInfo().equals(host));
    }
}

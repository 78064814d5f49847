package dev.quotaenforcer.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Finds, from Kafka Streams' metadata, which instance owns a key of a store, and asks other
 * instances over HTTP. A forwarded request carries a header so it is never forwarded again: when
 * ownership moves mid-request the answer is 503, not a loop.
 */
final class InstanceRouter {

    /** Marks a request one instance sent another on a caller's behalf. */
    static final String FORWARDED_HEADER = "X-Quota-Forwarded";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final KafkaStreams streams;
    private final HostInfo self;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    InstanceRouter(KafkaStreams streams, HostInfo self) {
        this.streams = streams;
        this.self = self;
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

    /** GET {@code pathAndQuery} from another instance. */
    HttpResponse<byte[]> get(HostInfo host, String pathAndQuery) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + name(host) + pathAndQuery))
                .timeout(TIMEOUT)
                .header(FORWARDED_HEADER, self())
                .GET()
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }
}

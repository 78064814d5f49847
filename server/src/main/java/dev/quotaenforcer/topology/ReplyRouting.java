package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.ReplyAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.TopicNameExtractor;

/**
 * Request-reply the way Spring Kafka's ReplyingKafkaTemplate does it: a request carrying
 * {@code kafka_replyTopic} (and optionally {@code kafka_replyPartition} and {@code kafka_correlationId})
 * gets its decision on that topic and partition too, with the correlation id echoed, so a gateway
 * instance reads only its own decisions. Only {@code <prefix>.replies} and topics under
 * {@code <prefix>.replies.} that exist are honoured: any other name would let a client make the enforcer write where it should not, and a
 * missing topic would stall the stream thread while the producer waits for its metadata.
 */
final class ReplyRouting {

    /** A decision on its way to a reply address. */
    record Reply(Decision decision, ReplyAddress address) {
    }

    private final String allowedPrefix;
    private final Predicate<String> exists;

    /** @param allowedPrefix the default reply topic's name, which every reply topic must start with */
    ReplyRouting(String allowedPrefix, Predicate<String> exists) {
        this.allowedPrefix = allowedPrefix;
        this.exists = exists;
    }

    /** Longest correlation id echoed: Spring Kafka's are 16 bytes; longer ones are refused, not cut. */
    static final int MAX_CORRELATION_ID_BYTES = 256;
    /** Longest topic name Kafka allows. */
    static final int MAX_TOPIC_NAME_LENGTH = 249;

    /** What a request's reply headers say: no reply address, an address to reply to, or why they are refused. */
    sealed interface Read permits Read.None, Read.To, Read.Refused {

        /** The one {@link None}. */
        Read NONE = new None();

        /** The headers name no reply topic this enforcer answers on: the decisions topic alone has the answer. */
        record None() implements Read {
        }

        /** The address to reply to. */
        record To(ReplyAddress address) implements Read {
        }

        /** A reply header too large to echo or carry, and why: the request is refused. */
        record Refused(String problem) implements Read {
        }
    }

    /**
     * The reply address in the headers, if they name an allowed, existing topic; none if they name no
     * such topic; a problem if a header is too large to echo or carry.
     */
    Read read(Headers headers) {
        Header topic = headers.lastHeader(ReplyAddress.TOPIC_HEADER);
        if (topic == null || topic.value() == null) {
            return Read.NONE;
        }
        if (topic.value().length > MAX_TOPIC_NAME_LENGTH) {
            return new Read.Refused(ReplyAddress.TOPIC_HEADER + ": " + topic.value().length + " bytes; a topic name has at most "
                    + MAX_TOPIC_NAME_LENGTH);
        }
        Header correlation = headers.lastHeader(ReplyAddress.CORRELATION_HEADER);
        byte[] correlationId = correlation == null ? null : correlation.value();
        if (correlationId != null && correlationId.length > MAX_CORRELATION_ID_BYTES) {
            return new Read.Refused(ReplyAddress.CORRELATION_HEADER + ": " + correlationId.length + " bytes; at most "
                    + MAX_CORRELATION_ID_BYTES + " are echoed");
        }
        String name = new String(topic.value(), StandardCharsets.UTF_8);
        if (!allows(name)) {
            return Read.NONE;
        }
        Header partition = headers.lastHeader(ReplyAddress.PARTITION_HEADER);
        int replyPartition = ReplyAddress.partition(partition == null ? null : partition.value());
        return new Read.To(new ReplyAddress(name, replyPartition, correlationId));
    }

    /**
     * Whether a reply may go to this address: an existing topic named {@code <prefix>.replies} or
     * {@code <prefix>.replies.<anything>} (so {@code quota.repliesX}, another application's, is not),
     * a partition number or none, and a correlation id small enough to echo.
     */
    boolean allows(ReplyAddress address) {
        return allows(address.topic()) && address.partition() >= -1
                && (address.correlationId() == null || address.correlationId().length <= MAX_CORRELATION_ID_BYTES);
    }

    private boolean allows(String name) {
        return (name.equals(allowedPrefix) || name.startsWith(allowedPrefix + ".")) && name.length() <= MAX_TOPIC_NAME_LENGTH
                && exists.test(name);
    }

    /** The headers of a reply: the correlation id, echoed. */
    static Headers replyHeaders(ReplyAddress address) {
        Headers headers = new RecordHeaders();
        if (address.correlationId() != null) {
            headers.add(ReplyAddress.CORRELATION_HEADER, address.correlationId());
        }
        return headers;
    }

    /**
     * How replies are produced: to the address's topic and partition, the decision as the reply
     * topic's serde writes it (every reply topic shares the default one's description).
     */
    static Produced<String, Reply> produced(Topic<String, Decision> replyTopic) {
        Serializer<Decision> decisions = replyTopic.valueSerde().serializer();
        Serde<Reply> replies = Serdes.serdeFrom(
                (topic, reply) -> decisions.serialize(topic, reply.decision()),
                (topic, bytes) -> {
                    throw new UnsupportedOperationException("replies are only written");
                });
        return Produced.with(Serdes.String(), replies).withStreamPartitioner(new ToReplyPartition());
    }

    /** The partition the gateway asked for, when it asked for one that exists; else the key's. */
    private static final class ToReplyPartition implements StreamPartitioner<String, Reply> {

        @Override
        public Optional<Set<Integer>> partitions(String topic, String key, Reply reply, Headers headers, int partitions) {
            int asked = reply.address().partition();
            return asked >= 0 && asked < partitions ? Optional.of(Set.of(asked)) : Optional.empty();
        }

        @Override
        @SuppressWarnings("removal")
        public Optional<Set<Integer>> partitions(String topic, String key, Reply reply, int partitions) {
            return partitions(topic, key, reply, new RecordHeaders(), partitions);
        }
    }

    static TopicNameExtractor<String, Reply> topic() {
        return (key, reply, context) -> reply.address().topic();
    }
}

package dev.quotaenforcer.bench;

import dev.quotaenforcer.event.ReplyAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The floor under the latency scenario: a Kafka Streams application that answers each request by
 * writing its bytes back to the reply partition its headers name, with the correlation id, deciding,
 * counting and storing nothing. Run on the same broker with the same partitions and guarantee as the
 * enforcer, it measures what any request-reply Streams application pays on this machine.
 */
final class ReplyEcho implements AutoCloseable {

    private final KafkaStreams streams;
    private final AtomicLong answered = new AtomicLong();

    /**
     * @param settings   bootstrap servers, application id, state directory, guarantee and any client settings
     * @param idleTopics topics it reads beside the requests, which nothing writes to: their partitions are
     *                   assigned, fetched and polled like the requests'
     */
    ReplyEcho(Map<String, Object> settings, String requestsTopic, List<String> idleTopics, String replyTopic) {
        List<String> sources = new ArrayList<>(List.of(requestsTopic));
        sources.addAll(idleTopics);
        Topology topology = new Topology()
                .addSource("requests", new ByteArrayDeserializer(), new ByteArrayDeserializer(), sources.toArray(String[]::new))
                .addProcessor("answer", () -> new Answer(answered), "requests")
                .addSink("replies", replyTopic, new ByteArraySerializer(), new ByteArraySerializer(),
                        new ToAskedPartition(), "answer");
        Properties properties = new Properties();
        properties.putAll(settings);
        this.streams = new KafkaStreams(topology, properties);
        streams.start();
    }

    /** Whether it was running within {@code timeout}. */
    boolean awaitRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (streams.state() != KafkaStreams.State.RUNNING) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        return true;
    }

    KafkaStreams streams() {
        return streams;
    }

    /** Requests answered so far, committed or not. */
    long answered() {
        return answered.get();
    }

    @Override
    public void close() {
        streams.close();
    }

    /** Keeps of the request's headers only what the gateway needs back: the correlation id and reply partition. */
    private static final class Answer implements Processor<byte[], byte[], byte[], byte[]> {

        private static final List<String> KEPT = List.of(ReplyAddress.CORRELATION_HEADER, ReplyAddress.PARTITION_HEADER);

        private final AtomicLong answered;
        private ProcessorContext<byte[], byte[]> context;

        Answer(AtomicLong answered) {
            this.answered = answered;
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            Headers headers = new RecordHeaders();
            for (String name : KEPT) {
                Header header = record.headers().lastHeader(name);
                if (header != null) {
                    headers.add(header);
                }
            }
            context.forward(record.withHeaders(headers));
            answered.incrementAndGet();
        }
    }

    /** The partition the gateway asked for, as the enforcer routes it; the key's when none was asked. */
    private static final class ToAskedPartition implements StreamPartitioner<byte[], byte[]> {

        @Override
        public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, Headers headers, int partitions) {
            Header asked = headers.lastHeader(ReplyAddress.PARTITION_HEADER);
            int partition = ReplyAddress.partition(asked == null ? null : asked.value());
            return partition >= 0 && partition < partitions ? Optional.of(Set.of(partition)) : Optional.empty();
        }

        @Override
        @SuppressWarnings("removal")
        public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value, int partitions) {
            return partitions(topic, key, value, new RecordHeaders(), partitions);
        }
    }
}

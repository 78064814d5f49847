package dev.quotaenforcer.client;

import dev.quotaenforcer.event.Block;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A gateway's asynchronous view of the enforcer, for gateways that can add no latency: {@link #record}
 * publishes a request event without waiting, and {@link #isBlocked} answers locally from the blocks
 * topic, which the enforcer writes when a key starts being denied. The price: between a key going
 * over its limit and the block reaching this gateway (the enforcer's commit, then this client's
 * fetch), its requests still pass, so a key can overshoot by what it sends in that time.
 *
 * <p>Needs only kafka-clients and Jackson at runtime.
 */
public final class AsyncQuotaClient implements AutoCloseable {

    private final String requestsTopic;
    private final Clock clock;
    private final KafkaProducer<String, byte[]> producer;
    private final BackgroundReader<String> reader;
    private final Map<String, Block> blocks = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong notRecorded = new AtomicLong();
    private final CountDownLatch requestsKnown;

    /**
     * @param kafkaSettings bootstrap servers and any security settings, shared by its producer and consumer
     * @param requestsTopic where request events go, e.g. {@code quota.requests}
     * @param blocksTopic   the enforcer's blocks topic, e.g. {@code quota.blocks}, read whole from the start
     */
    public AsyncQuotaClient(Map<String, Object> kafkaSettings, String requestsTopic, String blocksTopic, Clock clock) {
        this.requestsTopic = requestsTopic;
        this.clock = clock;
        Map<String, Object> producerSettings = new HashMap<>(kafkaSettings);
        producerSettings.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // record() never waits: without metadata or buffer room the event is dropped and counted.
        producerSettings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 0);
        this.producer = new KafkaProducer<>(producerSettings, new StringSerializer(), new ByteArraySerializer());
        this.requestsKnown = MetadataWarmUp.start(producer, requestsTopic);
        this.reader = new BackgroundReader<>(kafkaSettings, IsolationLevel.READ_COMMITTED, new StringDeserializer(), consumer -> {
            List<TopicPartition> partitions = consumer.partitionsFor(blocksTopic).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            if (partitions.isEmpty()) {
                throw new TimeoutException("topic " + blocksTopic + " has no partitions yet");
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }, this::apply, "quota-client-blocks-" + blocksTopic);
    }

    /**
     * Publishes a request event and returns at once; its decision is the enforcer's business. An event
     * the producer cannot take (no broker reachable yet, buffer full) is dropped and counted.
     */
    public void record(String apiKey, long cost, String requestId) {
        producer.send(RequestRecords.request(requestsTopic, apiKey, cost, requestId, clock.millis()), (metadata, error) -> {
            if (error != null) {
                notRecorded.incrementAndGet();
            }
        });
    }

    /**
     * Waits until the cluster has answered: the requests topic is known and the blocks topic read from
     * its start. Until then events are dropped (and counted) and no key is blocked. False on timeout.
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        return requestsKnown.await(timeout.toMillis(), TimeUnit.MILLISECONDS)
                && reader.awaitPositioned(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    /** How many events {@link #record} could not publish. */
    public long notRecorded() {
        return notRecorded.get();
    }

    /** The block on {@code apiKey} that holds now, if any: refuse its requests with a 429 until it ends. */
    public Optional<Block> blockOf(String apiKey) {
        Block block = blocks.get(apiKey);
        return block != null && block.holdsAt(clock.instant()) ? Optional.of(block) : Optional.empty();
    }

    public boolean isBlocked(String apiKey) {
        return blockOf(apiKey).isPresent();
    }

    private void apply(ConsumerRecord<String, byte[]> record) {
        Block block = record.value() == null ? null : RequestRecords.read(record.value(), Block.class);
        if (block == null) {
            blocks.remove(record.key());
        } else {
            blocks.put(record.key(), block);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            reader.close();
            producer.close();
        }
    }
}

package dev.quotaenforcer.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Gateway traffic at a fixed rate for fault tests: an idempotent producer sends requests with unique
 * ids round-robin over the keys, every tick of 10 ms its share of the rate. A key is produced in one
 * of three ways, so a third of the keys are decided where they land and the rest must be re-keyed.
 */
final class SteadyLoad implements AutoCloseable {

    /** How a key's requests reach the requests topic. */
    enum Placement {
        /** Keyed by the API key, on the Java client's default partition: decided in place. */
        KEYED,
        /** No record key: spread over the partitions, re-keyed by the enforcer. */
        UNKEYED,
        /** Keyed, but every record on the partition after the default one, as another client's partitioner would. */
        MISPLACED
    }

    /** One request as the gateway sent it; {@code sentNanos} is this JVM's clock when it was handed to the producer. */
    record Sent(String requestId, String apiKey, long cost, long eventTimeMs, long sentNanos) {
    }

    private static final long TICK_MS = 10;

    private final String topic;
    private final int partitions;
    private final List<String> keys;
    private final Map<String, Placement> placements;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "steady-load");
        thread.setDaemon(true);
        return thread;
    });
    private final ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final AtomicLong acknowledged = new AtomicLong();
    private final double perTick;
    private double owed;
    private long sequence;

    private SteadyLoad(TestCluster cluster, int partitions, Map<String, Placement> placements, int perSecond) {
        this.topic = cluster.topics().requests().name();
        this.partitions = partitions;
        this.placements = placements;
        this.keys = List.copyOf(placements.keySet());
        this.perTick = perSecond * TICK_MS / 1000.0;
        Map<String, Object> settings = new HashMap<>();
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // Broker failures must not turn into lost requests: the producer retries through leader changes.
        settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
        settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 300_000);
        this.producer = new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Starts sending {@code perSecond} requests a second over the keys, each placed as given. */
    static SteadyLoad start(TestCluster cluster, int partitions, Map<String, Placement> placements, int perSecond) {
        SteadyLoad load = new SteadyLoad(cluster, partitions, placements, perSecond);
        load.ticker.scheduleAtFixedRate(load::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
        return load;
    }

    /** Keys {@code <prefix>-0} onwards, their placements cycling through keyed, unkeyed and misplaced. */
    static Map<String, Placement> keys(String prefix, int count) {
        Map<String, Placement> placements = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            placements.put(prefix + "-" + i, Placement.values()[i % Placement.values().length]);
        }
        return placements;
    }

    private void tick() {
        owed += perTick;
        try {
            while (owed >= 1) {
                owed--;
                send(keys.get((int) (sequence % keys.size())), sequence++);
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    private void send(String apiKey, long seq) {
        String requestId = apiKey + "-r" + seq;
        // Mostly 1, sometimes 2 or 3: a log's entries of unequal cost exercise its Retry-After.
        long cost = seq % 7 == 0 ? 3 : seq % 5 == 0 ? 2 : 1;
        long eventTime = System.currentTimeMillis();
        String json = "{\"requestId\":\"" + requestId + "\",\"apiKey\":\"" + apiKey + "\",\"cost\":" + cost
                + ",\"timestamp\":" + eventTime + "}";
        byte[] key = apiKey.getBytes(StandardCharsets.UTF_8);
        int home = Utils.toPositive(Utils.murmur2(key)) % partitions;
        ProducerRecord<byte[], byte[]> record = switch (placements.get(apiKey)) {
            case KEYED -> new ProducerRecord<>(topic, key, utf8(json));
            case UNKEYED -> new ProducerRecord<>(topic, null, utf8(json));
            case MISPLACED -> new ProducerRecord<>(topic, (home + 1) % partitions, key, utf8(json));
        };
        sent.add(new Sent(requestId, apiKey, cost, eventTime, System.nanoTime()));
        producer.send(record, (metadata, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            } else {
                acknowledged.incrementAndGet();
            }
        });
    }

    /** Stops sending, waits for every request sent to be acknowledged, and returns them in the order sent. */
    List<Sent> stop() throws InterruptedException {
        ticker.shutdown();
        if (!ticker.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the load did not stop within 30 s");
        }
        producer.flush();
        if (failure.get() != null) {
            throw new AssertionError("a request could not be sent: " + failure.get(), failure.get());
        }
        List<Sent> all = new ArrayList<>(sent);
        if (acknowledged.get() != all.size()) {
            throw new AssertionError(acknowledged.get() + " of " + all.size() + " requests acknowledged");
        }
        return all;
    }

    /** Requests sent so far. */
    int sentCount() {
        return sent.size();
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        producer.close();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

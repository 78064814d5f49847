package dev.quotaenforcer.demo;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Synthetic gateway traffic for the demo: a few well-behaved keys, one bursty key and one key that
 * runs through its hourly quota, each publishing request events the way a gateway would.
 */
public final class GatewaySimulator implements AutoCloseable {

    /** One simulated client: its API key, plan, and how many requests it sends every {@code everyMs}. */
    public record Client(String apiKey, String plan, int requests, long everyMs, String behaviour) {
    }

    /** The demo's clients, on the sample plans of topics/. */
    public static final List<Client> CLIENTS = List.of(
            new Client("demo-steady-1", "free", 1, 1_000, "1 request/s, well within 100/min"),
            new Client("demo-steady-2", "free", 1, 1_500, "1 request every 1.5 s"),
            new Client("demo-steady-3", "pro", 5, 1_000, "5 requests/s, well within the pro bucket"),
            new Client("demo-bursty", "pro", 80, 5_000, "bursts of 80 every 5 s against a bucket of 50 at 20/s"),
            new Client("demo-trial", "trial", 8, 1_000, "8 requests/s: spends the trial's 200/hour in 25 s"));

    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(1, r -> {
        Thread thread = new Thread(r, "demo-gateway");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong sequence = new AtomicLong();

    /** @param producerSettings bootstrap servers and any security settings */
    public GatewaySimulator(Map<String, Object> producerSettings, String requestsTopic) {
        this.producer = new KafkaProducer<>(producerSettings, new StringSerializer(), new ByteArraySerializer());
        this.topic = requestsTopic;
    }

    public void start() {
        for (Client client : CLIENTS) {
            scheduler.scheduleAtFixedRate(() -> send(client), 0, client.everyMs(), TimeUnit.MILLISECONDS);
        }
    }

    private void send(Client client) {
        for (int i = 0; i < client.requests(); i++) {
            String json = "{\"requestId\": \"demo-" + sequence.incrementAndGet() + "\", \"apiKey\": \"" + client.apiKey()
                    + "\", \"cost\": 1}";
            producer.send(new ProducerRecord<>(topic, client.apiKey(), json.getBytes(StandardCharsets.UTF_8)));
        }
    }

    public long sent() {
        return sequence.get();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        producer.close();
    }
}

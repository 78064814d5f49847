package dev.quotaenforcer.client;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A gateway's synchronous view of the enforcer: {@link #check} publishes a request event carrying a
 * reply address (Spring Kafka's {@code kafka_replyTopic}, {@code kafka_replyPartition} and
 * {@code kafka_correlationId} headers) and completes when the decision arrives on this client's own
 * reply partition, so each gateway instance reads only its own decisions. No decision within the
 * timeout yields one made by the failure policy, marked as such and counted. Nothing here waits on the
 * cluster: the client is usable as soon as it is built, even with no broker reachable, and a check
 * that cannot be sent (no metadata yet, buffer full) is answered by the failure policy at once.
 * A reply is taken only if its correlation id, API key and request id all match a check waiting
 * for it; any other is ignored and counted. The counts are also the JMX MXBean
 * {@code dev.quotaenforcer:type=QuotaClient,client=ID} ({@link QuotaClientMXBean}).
 *
 * <p>Needs only kafka-clients and Jackson at runtime.
 */
public final class QuotaClient implements AutoCloseable {

    /** What to do when no decision arrives in time. */
    public enum FailurePolicy {
        /** Let the request through: availability over enforcement. */
        FAIL_OPEN,
        /** Refuse the request: enforcement over availability. */
        FAIL_CLOSED
    }

    /**
     * Where a client sends its checks, where its replies come back and how long it waits for them. Built with
     * {@link #builder()}, which checks every value at {@link Builder#build()}.
     */
    public static final class Options {

        /** The requests topic under the default topic prefix. */
        public static final String DEFAULT_REQUESTS_TOPIC = "quota.requests";
        /** The reply topic {@code run} and {@code topics apply} create under the default topic prefix. */
        public static final String DEFAULT_REPLY_TOPIC = "quota.replies";
        /** Room for a read-committed reply to wait for the enforcer's commit (every 100 ms by default). */
        public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);
        /** Availability over enforcement, as most gateways choose for a rate limiter they cannot reach. */
        public static final FailurePolicy DEFAULT_FAILURE_POLICY = FailurePolicy.FAIL_OPEN;
        /** Decisions only once committed: the ones that never disagree with the enforcer's books. */
        public static final IsolationLevel DEFAULT_REPLY_ISOLATION = IsolationLevel.READ_COMMITTED;

        /** What Kafka accepts as a topic name. */
        private static final Pattern TOPIC_NAME = Pattern.compile("[A-Za-z0-9._-]{1,249}");

        private final String requestsTopic;
        private final String replyTopic;
        private final int replyPartition;
        private final Duration timeout;
        private final FailurePolicy failurePolicy;
        private final IsolationLevel replyIsolation;

        private Options(Builder builder) {
            this.requestsTopic = builder.requestsTopic;
            this.replyTopic = builder.replyTopic;
            this.replyPartition = builder.replyPartition;
            this.timeout = builder.timeout;
            this.failurePolicy = builder.failurePolicy;
            this.replyIsolation = builder.replyIsolation;
        }

        /** A builder holding the defaults; only the reply partition must be given. */
        public static Builder builder() {
            return new Builder();
        }

        public String requestsTopic() {
            return requestsTopic;
        }

        public String replyTopic() {
            return replyTopic;
        }

        public int replyPartition() {
            return replyPartition;
        }

        public Duration timeout() {
            return timeout;
        }

        public FailurePolicy failurePolicy() {
            return failurePolicy;
        }

        public IsolationLevel replyIsolation() {
            return replyIsolation;
        }

        @Override
        public String toString() {
            return "Options[requestsTopic=" + requestsTopic + ", replyTopic=" + replyTopic + ", replyPartition="
                    + replyPartition + ", timeout=" + timeout + ", failurePolicy=" + failurePolicy + ", replyIsolation="
                    + replyIsolation + "]";
        }

        /** Collects the options; {@link #build()} checks them and says which one is wrong. */
        public static final class Builder {

            private String requestsTopic = DEFAULT_REQUESTS_TOPIC;
            private String replyTopic = DEFAULT_REPLY_TOPIC;
            /** No default: two gateway instances on one partition would each read the other's replies. */
            private Integer replyPartition;
            private Duration timeout = DEFAULT_TIMEOUT;
            private FailurePolicy failurePolicy = DEFAULT_FAILURE_POLICY;
            private IsolationLevel replyIsolation = DEFAULT_REPLY_ISOLATION;

            private Builder() {
            }

            /** Where request events go; default {@value Options#DEFAULT_REQUESTS_TOPIC}. */
            public Builder requestsTopic(String requestsTopic) {
                this.requestsTopic = requestsTopic;
                return this;
            }

            /**
             * This gateway's reply topic, {@code <prefix>.replies} or a topic under it such as
             * {@code quota.replies.edge-eu} (the enforcer writes to no other); default {@value Options#DEFAULT_REPLY_TOPIC}.
             */
            public Builder replyTopic(String replyTopic) {
                this.replyTopic = replyTopic;
                return this;
            }

            /** The partition of the reply topic this gateway instance owns; required. */
            public Builder replyPartition(int replyPartition) {
                this.replyPartition = replyPartition;
                return this;
            }

            /** How long a check waits for its decision before the failure policy answers; default 250 ms. */
            public Builder timeout(Duration timeout) {
                this.timeout = timeout;
                return this;
            }

            /** Who answers a check no decision reached in time; default {@code FAIL_OPEN}. */
            public Builder failurePolicy(FailurePolicy failurePolicy) {
                this.failurePolicy = failurePolicy;
                return this;
            }

            /**
             * {@code READ_COMMITTED} (the default) waits for the enforcer's transaction to commit;
             * {@code READ_UNCOMMITTED} reads a decision as soon as it is written, which under exactly-once
             * may be rolled back and the request decided again (see the README).
             */
            public Builder replyIsolation(IsolationLevel replyIsolation) {
                this.replyIsolation = replyIsolation;
                return this;
            }

            /** @throws IllegalArgumentException naming the first option that is missing or wrong, and its value */
            public Options build() {
                requireTopicName("requestsTopic", requestsTopic);
                requireTopicName("replyTopic", replyTopic);
                if (replyPartition == null) {
                    throw new IllegalArgumentException("replyPartition: not set; give the partition of " + replyTopic
                            + " this gateway instance owns");
                }
                if (replyPartition < 0) {
                    throw new IllegalArgumentException("replyPartition: " + replyPartition + " must be 0 or more");
                }
                if (timeout == null) {
                    throw new IllegalArgumentException("timeout: null; give how long a check waits, e.g. PT0.25S");
                }
                // Waits are scheduled in whole milliseconds: a shorter timeout would answer every check by the policy.
                if (timeout.compareTo(Duration.ofMillis(1)) < 0) {
                    throw new IllegalArgumentException("timeout: " + timeout + " must be at least 1 ms");
                }
                if (failurePolicy == null) {
                    throw new IllegalArgumentException("failurePolicy: null; give FAIL_OPEN or FAIL_CLOSED");
                }
                if (replyIsolation == null) {
                    throw new IllegalArgumentException("replyIsolation: null; give READ_COMMITTED or READ_UNCOMMITTED");
                }
                return new Options(this);
            }

            private static void requireTopicName(String option, String name) {
                if (name == null || !TOPIC_NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
                    throw new IllegalArgumentException(option + ": " + (name == null ? "null" : '"' + name + '"')
                            + " is not a topic name; use 1 to 249 letters, digits, '.', '_' or '-'");
                }
            }
        }
    }

    private final Options options;
    private final Clock clock;
    private final KafkaProducer<String, byte[]> producer;
    private final BackgroundReader<byte[]> replies;
    private final Map<String, Waiting> pending = new ConcurrentHashMap<>();
    private final AtomicLong checks = new AtomicLong();
    private final AtomicLong decidedByPolicy = new AtomicLong();
    private final AtomicLong mismatchedReplies = new AtomicLong();
    private final ObjectName metricsName;
    private final CountDownLatch requestsKnown;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param kafkaSettings bootstrap servers and any security settings, shared by its producer and consumer */
    public QuotaClient(Map<String, Object> kafkaSettings, Options options, Clock clock) {
        this.options = options;
        this.clock = clock;
        Map<String, Object> producerSettings = new HashMap<>(kafkaSettings);
        producerSettings.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // check() never waits on the cluster: without metadata or buffer room its send fails at once.
        producerSettings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 0);
        this.producer = new KafkaProducer<>(producerSettings, new StringSerializer(), new ByteArraySerializer());
        this.requestsKnown = MetadataWarmUp.start(producer, options.requestsTopic());
        TopicPartition partition = new TopicPartition(options.replyTopic(), options.replyPartition());
        this.replies = new BackgroundReader<>(kafkaSettings, options.replyIsolation(), new ByteArrayDeserializer(), consumer -> {
            consumer.assign(List.of(partition));
            consumer.seekToEnd(List.of(partition));
            // Resolve the position, so no reply to a request sent from here on can be missed.
            consumer.position(partition);
        }, this::answer, "quota-client-replies-" + options.replyTopic());
        this.metricsName = ClientMBeans.register("QuotaClient", kafkaSettings, new Counts());
    }

    /**
     * Asks whether a request may pass; completes with the enforcer's decision, or the failure
     * policy's after the timeout.
     */
    public CompletableFuture<GatewayDecision> check(String apiKey, long cost, String requestId) {
        checks.incrementAndGet();
        byte[] correlation = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
        String id = HexFormat.of().formatHex(correlation);
        CompletableFuture<GatewayDecision> answer = new CompletableFuture<>();
        pending.put(id, new Waiting(apiKey, requestId, answer));
        long sentAt = clock.millis();
        answer.completeOnTimeout(byPolicy(apiKey, requestId, sentAt), options.timeout().toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((decision, error) -> {
                    pending.remove(id);
                    if (decision != null && decision.byFailurePolicy()) {
                        decidedByPolicy.incrementAndGet();
                    }
                });
        ProducerRecord<String, byte[]> record =
                RequestRecords.request(options.requestsTopic(), apiKey, cost, requestId, sentAt);
        record.headers().add(ReplyAddress.TOPIC_HEADER, options.replyTopic().getBytes(StandardCharsets.UTF_8));
        record.headers().add(ReplyAddress.PARTITION_HEADER, ReplyAddress.partitionHeader(options.replyPartition()));
        record.headers().add(ReplyAddress.CORRELATION_HEADER, correlation);
        producer.send(record, (metadata, error) -> {
            if (error != null) {
                answer.complete(byPolicy(apiKey, requestId, sentAt));
            }
        });
        return answer;
    }

    /** How many checks were asked. */
    public long checks() {
        return checks.get();
    }

    /** How many checks the failure policy answered, because no decision came in time or sending failed. */
    public long decidedByFailurePolicy() {
        return decidedByPolicy.get();
    }

    private GatewayDecision byPolicy(String apiKey, String requestId, long time) {
        boolean allowed = options.failurePolicy() == FailurePolicy.FAIL_OPEN;
        return new GatewayDecision(new Decision(requestId, apiKey, null, allowed, Reason.UNAVAILABLE, null, 0, 0, 0, 0, 0,
                Instant.ofEpochMilli(time), Map.of()), true);
    }

    /** The counts as JMX reads them. */
    private final class Counts implements QuotaClientMXBean {

        @Override
        public long getChecks() {
            return checks();
        }

        @Override
        public long getDecidedByFailurePolicy() {
            return decidedByFailurePolicy();
        }

        @Override
        public long getMismatchedReplies() {
            return mismatchedReplies();
        }
    }

    /** A check waiting for its reply: what the reply must be about, and where it goes. */
    private record Waiting(String apiKey, String requestId, CompletableFuture<GatewayDecision> answer) {
    }

    /** How many replies were ignored: no check waited for their correlation id, or they were about another request. */
    public long mismatchedReplies() {
        return mismatchedReplies.get();
    }

    /**
     * Waits until the cluster has answered: the requests topic is known and replies are read, so from
     * then on checks are sent and none of their replies is missed. Until then checks get the failure
     * policy's answer. False on timeout.
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        return requestsKnown.await(timeout.toMillis(), TimeUnit.MILLISECONDS)
                && replies.awaitPositioned(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    private void answer(ConsumerRecord<byte[], byte[]> record) {
        Header correlation = record.headers().lastHeader(ReplyAddress.CORRELATION_HEADER);
        Waiting waiting = correlation == null || correlation.value() == null ? null
                : pending.get(HexFormat.of().formatHex(correlation.value()));
        Decision decision = record.value() == null ? null : RequestRecords.read(record.value(), Decision.class);
        if (waiting == null || decision == null || !waiting.apiKey().equals(decision.apiKey())
                || !waiting.requestId().equals(decision.requestId())) {
            // Another instance's reply on a shared partition, a late one, or not about this request at all.
            mismatchedReplies.incrementAndGet();
            return;
        }
        waiting.answer().complete(new GatewayDecision(decision, false));
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            ClientMBeans.unregister(metricsName);
            replies.close();
            producer.close();
        }
    }
}

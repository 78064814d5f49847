package dev.quotaenforcer.config;

import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The enforcer's own settings, validated at construction; every other key is handed to Kafka
 * Streams (and through it to every internal client) unchanged.
 */
public final class EnforcerConfig extends AbstractConfig {

    public static final String TOPIC_PREFIX_CONFIG = "quota.topic.prefix";
    private static final String TOPIC_PREFIX_DOC = "Prefix of every topic the enforcer reads or writes: "
            + "<prefix>.requests, <prefix>.decisions, <prefix>.plans and so on.";

    public static final String REQUEST_PARTITIONS_CONFIG = "quota.requests.partitions";
    private static final String REQUEST_PARTITIONS_DOC = "Partition count of the requests topic. Records whose "
            + "key does not hash (murmur2, as the Java client does) to the partition they sit on are re-keyed "
            + "through a repartition topic of this many partitions, so a key is never counted by two tasks. The "
            + "enforcer reads it from the cluster when it starts, in place of any value given; the default serves only "
            + "a topology built without a cluster.";

    public static final String DEFAULT_PLAN_CONFIG = "quota.default.plan";
    private static final String DEFAULT_PLAN_DOC = "Plan applied to API keys with no assignment. Empty: such keys "
            + "are denied with UNKNOWN_API_KEY.";

    public static final String DEFAULT_PLAN_MAX_KEYS_CONFIG = "quota.default.plan.max.keys";
    private static final String DEFAULT_PLAN_MAX_KEYS_DOC = "With a default plan, how many keys a task holds state for "
            + "before it stops admitting keys that have no assignment: a new one is then refused with UNKNOWN_API_KEY "
            + "until idle keys expire, so a flood of random keys cannot exhaust memory. Assigned keys are always "
            + "admitted. 0: no cap.";

    public static final String REQUEST_MAX_BYTES_CONFIG = "quota.request.max.bytes";
    private static final String REQUEST_MAX_BYTES_DOC = "Request events larger than this go to the dead-letter topic.";

    public static final String REQUEST_MAX_COST_CONFIG = "quota.request.max.cost";
    private static final String REQUEST_MAX_COST_DOC = "Largest cost a single request may carry; larger is invalid.";

    public static final String REQUEST_MAX_AHEAD_MS_CONFIG = "quota.request.max.ahead.ms";
    private static final String REQUEST_MAX_AHEAD_MS_DOC = "How far a request's own timestamp may lie ahead of its "
            + "record's timestamp. Further ahead it is invalid: a key's time never runs backwards, so one event from "
            + "the future would otherwise hold all later requests of its key to that future time.";

    public static final String EXPIRY_INTERVAL_MS_CONFIG = "quota.expiry.interval.ms";
    private static final String EXPIRY_INTERVAL_MS_DOC = "Stream-time interval at which keys whose every window has "
            + "expired are deleted from the state store.";

    /** The enforcer's producer back-off before its first retry (it doubles with each retry, to 1 s). */
    public static final int PRODUCER_RETRY_BACKOFF_MS = 10;
    /** How long the enforcer's producer waits to fill a batch: Kafka's client default, not Kafka Streams' 100 ms. */
    public static final int PRODUCER_LINGER_MS = 5;
    /** The most bytes the enforcer's producer puts in one partition's batch: eight times the client's 16 KiB. */
    public static final int PRODUCER_BATCH_SIZE = 128 * 1024;
    /** How the enforcer's producer compresses its batches: Snappy, which cost the deciding thread least. */
    public static final String PRODUCER_COMPRESSION_TYPE = "snappy";
    /**
     * The producer settings the enforcer sets under the producer prefix unless the operator sets them,
     * for every client or for the producer, by name.
     */
    public static final Map<String, Object> PRODUCER_DEFAULTS = Collections.unmodifiableMap(new TreeMap<>(Map.of(
            // Under transactions v2 the first records after a commit are refused with CONCURRENT_TRANSACTIONS
            // until the broker has written the commit's markers, usually within milliseconds; the client's
            // default first back-off of 100 ms then stalls every decision behind it.
            ProducerConfig.RETRY_BACKOFF_MS_CONFIG, PRODUCER_RETRY_BACKOFF_MS,
            // Kafka Streams lets its producers wait up to 100 ms to fill a batch; a gateway waits on each decision.
            ProducerConfig.LINGER_MS_CONFIG, PRODUCER_LINGER_MS,
            // Under load the client's 16 KiB batches fill well within the linger, and every batch is work for the
            // producer's thread and the broker: at 128 KiB the throughput benchmark's producer thread was sampled
            // half as often. A light load's batches still go out when the linger ends.
            ProducerConfig.BATCH_SIZE_CONFIG, PRODUCER_BATCH_SIZE,
            // A decision is some 450 bytes of JSON, most of them the same as in the decisions beside it (field
            // names, the plan's RateLimit-Policy header): compressed, the broker takes in, checks, stores and
            // hands out a seventh of the bytes. The deciding thread compresses, and in the throughput benchmark
            // spent less per decision than it did without: Snappy less than LZ4, zstd more (docs/tuning.md).
            ProducerConfig.COMPRESSION_TYPE_CONFIG, PRODUCER_COMPRESSION_TYPE)));
    /** A century: far enough to replay any history, near enough that time arithmetic never overflows. */
    private static final long MAX_LATENESS_MS = 100L * 366 * 24 * 3_600_000;
    public static final String REQUEST_MAX_LATENESS_MS_CONFIG = "quota.request.max.lateness.ms";
    private static final String REQUEST_MAX_LATENESS_MS_DOC = "How far a request's event time may lie behind the newest "
            + "record timestamp its task has decided (the broker's append time): up to this late it is decided at its "
            + "own time, against the state it would have found; later, at this bound, and dead-lettered as "
            + "LATE_REQUEST. The same bound says when an idle key's state is deleted and when an hour's usage closes, "
            + "so neither is ever seen by a decision.";

    public static final String DEDUP_WINDOW_MS_CONFIG = "quota.dedup.window.ms";
    private static final String DEDUP_WINDOW_MS_DOC = "How long a request id is remembered, per API key, as an "
            + "idempotency key: a request re-sent with the same id within this time (of the broker's record timestamps) "
            + "gets the original decision again and is not counted again, across restarts and failovers. 0 remembers none.";

    public static final String USAGE_INTERVAL_MS_CONFIG = "quota.usage.interval.ms";
    private static final String USAGE_INTERVAL_MS_DOC = "Wall-clock interval at which each task writes the usage "
            + "figures that changed since its last write: per key and hour to the usage topic, and its share of each "
            + "plan's hour towards the plan usage topic. The figures themselves are counted exactly with every decision; "
            + "this sets only how fresh the topics are and how many records they take. Each task writes in its own "
            + "tenth of the interval, set by its partition, so the tasks of a stream thread take turns instead of "
            + "stopping it all at once.";

    public static final String DEAD_LETTER_MAX_BYTES_CONFIG = "quota.dead.letter.max.bytes";
    private static final String DEAD_LETTER_MAX_BYTES_DOC = "Dead-letter records keep at most this many bytes of the "
            + "original value (header dlq.truncated says when they were cut), so an oversize record cannot "
            + "itself be rejected by the broker.";

    public static final String HTTP_PORT_CONFIG = "quota.http.port";
    private static final String HTTP_PORT_DOC = "Port of the operator HTTP API and dashboard: 0 picks a free port, -1 "
            + "serves none (the instance then cannot answer other instances' usage queries either).";

    public static final String HTTP_BIND_ADDRESS_CONFIG = "quota.http.bind.address";
    private static final String HTTP_BIND_ADDRESS_DOC = "Address the HTTP API listens on.";

    public static final String HTTP_ADVERTISED_HOST_CONFIG = "quota.http.advertised.host";
    private static final String HTTP_ADVERTISED_HOST_DOC = "Host name other instances reach this one's HTTP API at; "
            + "with the HTTP port it becomes Kafka Streams' application.server (unless that is set), which routes a "
            + "usage query for a key to the instance that owns it. Set it when instances run on several hosts.";

    public static final String HTTP_AUTH_TOKENS_FILE_CONFIG = "quota.http.auth.tokens.file";
    private static final String HTTP_AUTH_TOKENS_FILE_DOC = "File of the bearer tokens the operator HTTP API accepts, one "
            + "per line, optionally name:token (the name is what logs show); read at startup. Every endpoint but /health, "
            + "/health/live, /health/ready and the dashboard's page then requires one. Empty: the API is open.";

    public static final String HTTP_MASK_API_KEYS_CONFIG = "quota.http.mask.api.keys";
    private static final String HTTP_MASK_API_KEYS_DOC = "Show the API keys the HTTP API lists (top keys of /plans/{plan}/"
            + "usage, /exceeded, the dashboard) masked: their first 4 characters and a short digest that is the same "
            + "everywhere. Set it alike on every instance.";

    public static final String ROCKSDB_MEMORY_BYTES_CONFIG = "quota.rocksdb.memory.bytes";
    public static final long DEFAULT_ROCKSDB_MEMORY_BYTES = 128L * 1024 * 1024;
    private static final String ROCKSDB_MEMORY_BYTES_DOC = "Off-heap memory all RocksDB stores of the process share: "
            + "block cache, index and filter blocks and (a quarter of it at most) memtables. Applies when "
            + "rocksdb.config.setter is left to the enforcer.";

    /** Prefix of the enforcer's own settings; any other key belongs to Kafka Streams or its clients. */
    private static final String OWN_PREFIX = "quota.";

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(TOPIC_PREFIX_CONFIG, Type.STRING, "quota", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    TOPIC_PREFIX_DOC)
            .define(REQUEST_PARTITIONS_CONFIG, Type.INT, 1, Range.atLeast(1), Importance.HIGH, REQUEST_PARTITIONS_DOC)
            .define(DEFAULT_PLAN_CONFIG, Type.STRING, "", Importance.MEDIUM, DEFAULT_PLAN_DOC)
            .define(DEFAULT_PLAN_MAX_KEYS_CONFIG, Type.INT, 100_000, Range.atLeast(0), Importance.MEDIUM,
                    DEFAULT_PLAN_MAX_KEYS_DOC)
            .define(REQUEST_MAX_BYTES_CONFIG, Type.INT, 64 * 1024, Range.between(256, 16 * 1024 * 1024),
                    Importance.LOW, REQUEST_MAX_BYTES_DOC)
            .define(REQUEST_MAX_COST_CONFIG, Type.LONG, 1_000_000L, Range.between(1, 1_000_000_000L),
                    Importance.LOW, REQUEST_MAX_COST_DOC)
            .define(REQUEST_MAX_AHEAD_MS_CONFIG, Type.LONG, 300_000L, Range.atLeast(0), Importance.LOW,
                    REQUEST_MAX_AHEAD_MS_DOC)
            .define(EXPIRY_INTERVAL_MS_CONFIG, Type.LONG, 60_000L, Range.between(1_000, 86_400_000), Importance.LOW,
                    EXPIRY_INTERVAL_MS_DOC)
            .define(REQUEST_MAX_LATENESS_MS_CONFIG, Type.LONG, 300_000L, Range.between(0, MAX_LATENESS_MS),
                    Importance.LOW, REQUEST_MAX_LATENESS_MS_DOC)
            .define(DEDUP_WINDOW_MS_CONFIG, Type.LONG, 60_000L, Range.between(0, 86_400_000), Importance.MEDIUM,
                    DEDUP_WINDOW_MS_DOC)
            .define(USAGE_INTERVAL_MS_CONFIG, Type.LONG, 1_000L, Range.atLeast(10), Importance.LOW, USAGE_INTERVAL_MS_DOC)
            .define(DEAD_LETTER_MAX_BYTES_CONFIG, Type.INT, 256 * 1024, Range.between(0, 16 * 1024 * 1024),
                    Importance.LOW, DEAD_LETTER_MAX_BYTES_DOC)
            .define(ROCKSDB_MEMORY_BYTES_CONFIG, Type.LONG, DEFAULT_ROCKSDB_MEMORY_BYTES, Range.atLeast(16L * 1024 * 1024),
                    Importance.MEDIUM, ROCKSDB_MEMORY_BYTES_DOC)
            .define(HTTP_PORT_CONFIG, Type.INT, 8080, Range.between(-1, 65535), Importance.MEDIUM, HTTP_PORT_DOC)
            .define(HTTP_BIND_ADDRESS_CONFIG, Type.STRING, "0.0.0.0", new ConfigDef.NonEmptyString(), Importance.LOW,
                    HTTP_BIND_ADDRESS_DOC)
            .define(HTTP_ADVERTISED_HOST_CONFIG, Type.STRING, "localhost", new ConfigDef.NonEmptyString(),
                    Importance.MEDIUM, HTTP_ADVERTISED_HOST_DOC)
            .define(HTTP_AUTH_TOKENS_FILE_CONFIG, Type.STRING, "", Importance.HIGH, HTTP_AUTH_TOKENS_FILE_DOC)
            .define(HTTP_MASK_API_KEYS_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, HTTP_MASK_API_KEYS_DOC);

    private final Map<String, Object> originals;

    public EnforcerConfig(Map<?, ?> settings) {
        super(DEFINITION, checked(settings), false);
        this.originals = new HashMap<>(originals());
    }

    /** Catches what ConfigDef lets through: a misspelt enforcer setting, and settings with no value. */
    private static Map<?, ?> checked(Map<?, ?> settings) {
        for (Map.Entry<?, ?> entry : settings.entrySet()) {
            String name = String.valueOf(entry.getKey());
            if (entry.getValue() == null) {
                throw new ConfigException(name, null, "has no value");
            }
            if (name.startsWith(OWN_PREFIX) && !DEFINITION.names().contains(name)) {
                throw new ConfigException(name, entry.getValue(), "is not a quota-enforcer setting; known ones are "
                        + new TreeSet<>(DEFINITION.names()));
            }
        }
        return settings;
    }

    public static ConfigDef definition() {
        return DEFINITION;
    }

    public String topicPrefix() {
        return getString(TOPIC_PREFIX_CONFIG);
    }

    public int requestPartitions() {
        return getInt(REQUEST_PARTITIONS_CONFIG);
    }

    /** The plan for keys with no assignment, or null when unknown keys are denied. */
    public String defaultPlan() {
        String plan = getString(DEFAULT_PLAN_CONFIG);
        return plan.isBlank() ? null : plan;
    }

    public int defaultPlanMaxKeys() {
        return getInt(DEFAULT_PLAN_MAX_KEYS_CONFIG);
    }

    public int requestMaxBytes() {
        return getInt(REQUEST_MAX_BYTES_CONFIG);
    }

    public long requestMaxCost() {
        return getLong(REQUEST_MAX_COST_CONFIG);
    }

    public long requestMaxAheadMs() {
        return getLong(REQUEST_MAX_AHEAD_MS_CONFIG);
    }

    public long expiryIntervalMs() {
        return getLong(EXPIRY_INTERVAL_MS_CONFIG);
    }

    public long requestMaxLatenessMs() {
        return getLong(REQUEST_MAX_LATENESS_MS_CONFIG);
    }

    public long dedupWindowMs() {
        return getLong(DEDUP_WINDOW_MS_CONFIG);
    }

    public long usageIntervalMs() {
        return getLong(USAGE_INTERVAL_MS_CONFIG);
    }

    public int deadLetterMaxBytes() {
        return getInt(DEAD_LETTER_MAX_BYTES_CONFIG);
    }

    public long rocksDbMemoryBytes() {
        return getLong(ROCKSDB_MEMORY_BYTES_CONFIG);
    }

    /** The HTTP API's port: 0 for any free one, -1 for none. */
    public int httpPort() {
        return getInt(HTTP_PORT_CONFIG);
    }

    public String httpBindAddress() {
        return getString(HTTP_BIND_ADDRESS_CONFIG);
    }

    public String httpAdvertisedHost() {
        return getString(HTTP_ADVERTISED_HOST_CONFIG);
    }

    /** The HTTP API's token file, or null when the API is open. */
    public Path httpAuthTokensFile() {
        String file = getString(HTTP_AUTH_TOKENS_FILE_CONFIG);
        return file.isBlank() ? null : Path.of(file.strip());
    }

    public boolean httpMaskApiKeys() {
        return getBoolean(HTTP_MASK_API_KEYS_CONFIG);
    }

    /**
     * Kafka Streams properties: every setting that is not the enforcer's own, over the enforcer's
     * defaults (application id {@code quota-enforcer}, exactly-once v2, task idling off, no early commits
     * by uncommitted bytes unless state stores are transactional). A new object each call.
     */
    public Properties streamsProperties() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "quota-enforcer");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // Opt in now to what Kafka 5.0 makes the default, rather than warn at every start.
        props.put("processing.exception.handler.global.enabled", "true");
        // The deciding task reads four topics, three of them (commands, the two re-keying topics) empty
        // nearly always; with idling on, Kafka Streams formats a log line per empty partition for every
        // record it processes: a sixth of the stream thread's time. Without it, a command is applied
        // among the requests in the order they are fetched rather than after waiting for its partition.
        props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        for (Map.Entry<String, Object> entry : originals.entrySet()) {
            if (!DEFINITION.names().contains(entry.getKey())) {
                props.put(entry.getKey(), entry.getValue());
            }
        }
        // At every turn of its loop Kafka Streams asks each store of each task for its uncommitted bytes,
        // to commit early past this bound; only transactional state stores count any. Without them the
        // walk finds nothing and took 1% of the stream thread's samples in the throughput benchmark.
        if (!Boolean.parseBoolean(String.valueOf(props.get(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG)).strip())) {
            props.putIfAbsent(StreamsConfig.STATESTORE_UNCOMMITTED_MAX_BYTES_CONFIG, -1L);
        }
        PRODUCER_DEFAULTS.forEach((name, value) -> {
            String prefixed = StreamsConfig.producerPrefix(name);
            if (!props.containsKey(name) && !props.containsKey(prefixed)) {
                props.put(prefixed, value);
            }
        });
        return props;
    }
}

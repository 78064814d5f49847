package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.RequestEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/** The production topology in a TopologyTestDriver, with helpers that speak in plans, keys and requests. */
final class EnforcerDriver implements AutoCloseable {

    static final Instant NOON = Instant.parse("2026-11-30T12:00:00Z");

    final QuotaTopology topology;
    final TopologyTestDriver driver;
    private final TestInputTopic<byte[], byte[]> requests;
    private final TestInputTopic<String, byte[]> plans;
    private final TestInputTopic<String, byte[]> apiKeys;
    private final TestInputTopic<byte[], byte[]> commands;
    private final TestOutputTopic<String, Decision> decisions;
    private final TestOutputTopic<String, QuotaExceeded> exceeded;
    private final TestOutputTopic<byte[], byte[]> deadLetters;
    private final Duration usageInterval;

    EnforcerDriver(Path stateDir) {
        this(stateDir, Map.of());
    }

    EnforcerDriver(Path stateDir, Map<String, Object> overrides) {
        this(stateDir, overrides, new DecisionStats());
    }

    /** The topology counting into {@code stats}. */
    EnforcerDriver(Path stateDir, Map<String, Object> overrides, DecisionStats stats) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, "quota-enforcer-test");
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.putAll(overrides);
        EnforcerConfig config = new EnforcerConfig(settings);
        usageInterval = Duration.ofMillis(config.usageIntervalMs());
        topology = new QuotaTopology(config, stats, topic -> true);
        Properties props = topology.streamsProperties();
        driver = new TopologyTestDriver(topology.build(), props, NOON);
        Topics topics = topology.topics();
        requests = driver.createInputTopic(topics.requests().name(), Serdes.ByteArray().serializer(), Serdes.ByteArray().serializer());
        plans = driver.createInputTopic(topics.plans().name(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        apiKeys = driver.createInputTopic(topics.apiKeys().name(), Serdes.String().serializer(), Serdes.ByteArray().serializer());
        commands = driver.createInputTopic(topics.commands().name(), Serdes.ByteArray().serializer(), Serdes.ByteArray().serializer());
        decisions = driver.createOutputTopic(topics.decisions().name(), Serdes.String().deserializer(),
                topics.decisions().valueSerde().deserializer());
        exceeded = driver.createOutputTopic(topics.exceeded().name(), Serdes.String().deserializer(),
                topics.exceeded().valueSerde().deserializer());
        deadLetters = driver.createOutputTopic(topics.deadLetter().name(), Serdes.ByteArray().deserializer(),
                Serdes.ByteArray().deserializer());
    }

    static Instant at(int minute, int second) {
        return NOON.plusSeconds(minute * 60L + second);
    }

    void plan(String id, String json) {
        plans.pipeInput(id, bytes(json), NOON);
    }

    void deletePlan(String id) {
        plans.pipeInput(id, null, NOON);
    }

    void assign(String apiKey, String plan) {
        apiKeys.pipeInput(apiKey, bytes("{\"plan\": \"" + plan + "\"}"), NOON);
    }

    void revoke(String apiKey) {
        apiKeys.pipeInput(apiKey, null, NOON);
    }

    void rawAssignment(String apiKey, String json) {
        apiKeys.pipeInput(apiKey, bytes(json), NOON);
    }

    /** Sends a request keyed by its API key with the event time as record timestamp. */
    void send(String apiKey, String requestId, long cost, Instant time) {
        sendRaw(apiKey, "{\"requestId\": \"" + requestId + "\", \"apiKey\": \"" + apiKey + "\", \"cost\": " + cost + "}", time);
    }

    void send(String apiKey, String requestId, Instant time) {
        send(apiKey, requestId, 1, time);
    }

    void sendRaw(String key, String json, Instant recordTime) {
        sendBytes(key == null ? null : bytes(key), json == null ? null : bytes(json), recordTime);
    }

    void sendBytes(byte[] key, byte[] value, Instant recordTime) {
        requests.pipeInput(key, value, recordTime);
    }

    /**
     * Writes a re-keyed request straight onto the repartition topic, as the intake of another task
     * would have, however late: what a failover upstream does to a re-keyed key's records.
     */
    void sendRekeyed(String apiKey, String requestId, Instant eventTime, Instant recordTime) {
        sendRekeyed(Topics.REKEYED_REQUESTS, apiKey, Topics.REKEYED.valueSerde().serializer().serialize(null,
                new RequestEvent(requestId, apiKey, 1, eventTime.toEpochMilli())), recordTime);
    }

    /** Writes any bytes onto one of the re-keying topics ({@link Topics#REKEYED_REQUESTS} or _COMMANDS). */
    void sendRekeyed(String topic, String key, byte[] value, Instant recordTime) {
        driver.createInputTopic("quota-enforcer-test-" + topic + "-repartition", Serdes.String().serializer(),
                Serdes.ByteArray().serializer()).pipeInput(key, value, recordTime);
    }

    /** Sends an admin command record keyed {@code key} (null: keyless) at {@code time}. */
    void command(String key, String json, Instant time) {
        commands.pipeInput(key == null ? null : bytes(key), json == null ? null : bytes(json), time);
    }

    /** Sends a request record with headers, e.g. a gateway's reply address. */
    void sendWithHeaders(String key, String json, Headers headers, Instant recordTime) {
        requests.pipeInput(new TestRecord<>(bytes(key), bytes(json), headers, recordTime));
    }

    /** Decisions written to a gateway's reply topic. */
    List<TestRecord<String, Decision>> replies(String topic) {
        return driver.createOutputTopic(topic, Serdes.String().deserializer(),
                topology.topics().decisions().valueSerde().deserializer()).readRecordsToList();
    }

    /** Sends one request and returns its decision. */
    Decision decide(String apiKey, String requestId, long cost, Instant time) {
        send(apiKey, requestId, cost, time);
        List<Decision> out = decisions();
        if (out.size() != 1) {
            throw new AssertionError("expected one decision for " + requestId + ", got " + out);
        }
        return out.get(0);
    }

    Decision decide(String apiKey, String requestId, Instant time) {
        return decide(apiKey, requestId, 1, time);
    }

    /** Sends {@code count} requests of cost 1 at one instant and returns how many were allowed. */
    int burst(String apiKey, String prefix, int count, Instant time) {
        for (int i = 0; i < count; i++) {
            send(apiKey, prefix + "-" + i, time);
        }
        return (int) decisions().stream().filter(Decision::allowed).count();
    }

    List<Decision> decisions() {
        return decisions.readValuesToList();
    }

    List<TestRecord<String, Decision>> decisionRecords() {
        return decisions.readRecordsToList();
    }

    /** The latest usage record per key and hour, in the order they were last written. */
    Map<String, KeyUsage> usage() {
        Map<String, KeyUsage> latest = new LinkedHashMap<>();
        usageRecords().forEach(record -> latest.put(record.key(), record.value()));
        return latest;
    }

    /** Usage records written so far, after letting one usage interval pass on the wall clock so the latest are. */
    List<TestRecord<String, KeyUsage>> usageRecords() {
        driver.advanceWallClockTime(usageInterval);
        return usageWritten();
    }

    /** Usage records written since last read, without moving the wall clock. */
    List<TestRecord<String, KeyUsage>> usageWritten() {
        return driver.createOutputTopic(topology.topics().usage().name(), Serdes.String().deserializer(),
                topology.topics().usage().valueSerde().deserializer()).readRecordsToList();
    }

    /** The latest usage record per plan and hour. */
    Map<String, PlanUsage> planUsage() {
        Map<String, PlanUsage> latest = new LinkedHashMap<>();
        planUsageRecords().forEach(record -> latest.put(record.key(), record.value()));
        return latest;
    }

    /** Plan usage records written so far, after one usage interval on the wall clock. */
    List<TestRecord<String, PlanUsage>> planUsageRecords() {
        driver.advanceWallClockTime(usageInterval);
        return driver.createOutputTopic(topology.topics().planUsage().name(), Serdes.String().deserializer(),
                topology.topics().planUsage().valueSerde().deserializer()).readRecordsToList();
    }

    List<Block> blocks() {
        return driver.createOutputTopic(topology.topics().blocks().name(), Serdes.String().deserializer(),
                topology.topics().blocks().valueSerde().deserializer()).readValuesToList();
    }

    /** The blocks topic's records, tombstones (null values) included. */
    List<TestRecord<String, Block>> blockRecords() {
        return driver.createOutputTopic(topology.topics().blocks().name(), Serdes.String().deserializer(),
                topology.topics().blocks().valueSerde().deserializer()).readRecordsToList();
    }

    List<QuotaExceeded> exceeded() {
        return exceeded.readValuesToList();
    }

    List<TestRecord<byte[], byte[]>> deadLetters() {
        return deadLetters.readRecordsToList();
    }

    KeyValueStore<String, KeyEntry> stateStore() {
        return driver.getKeyValueStore(QuotaTopology.STATE_STORE);
    }

    /** The key's limiter state in its entry, or null when it has none. */
    KeyState keyState(String apiKey) {
        KeyEntry entry = stateStore().get(apiKey);
        return entry == null ? null : entry.state();
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The value of a record's last header of that name, as text. */
    static String header(Headers headers, String name) {
        return text(headers.lastHeader(name).value());
    }

    static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        driver.close();
    }
}

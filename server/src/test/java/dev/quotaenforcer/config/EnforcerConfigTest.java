package dev.quotaenforcer.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Enforcer settings: defaults, validation of the enforcer's own keys, and the Kafka Streams properties built from the rest. */
class EnforcerConfigTest {

    @Test
    void defaultsTopicPrefixPartitionsAndNoDefaultPlan() {
        EnforcerConfig config = new EnforcerConfig(Map.of());

        assertEquals("quota", config.topicPrefix());
        assertEquals(1, config.requestPartitions());
        assertNull(config.defaultPlan());
        assertEquals(64 * 1024, config.requestMaxBytes());
        assertEquals(1_000_000L, config.requestMaxCost());
        assertEquals(60_000L, config.expiryIntervalMs());
        assertEquals(1_000L, config.usageIntervalMs());
        assertEquals(256 * 1024, config.deadLetterMaxBytes());
    }

    @Test
    void defaultsStreamsToExactlyOnceV2AndApplicationIdQuotaEnforcer() {
        Properties props = new EnforcerConfig(Map.of()).streamsProperties();

        assertEquals(StreamsConfig.EXACTLY_ONCE_V2, props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
        assertEquals("exactly_once_v2", props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
        assertEquals("quota-enforcer", props.get(StreamsConfig.APPLICATION_ID_CONFIG));
    }

    @Test
    void aLingerTheOperatorSetsPlainOrPrefixedReachesTheProducers() {
        Properties plain = new EnforcerConfig(Map.of("linger.ms", "20")).streamsProperties();
        Properties prefixed = new EnforcerConfig(Map.of("producer.linger.ms", "30")).streamsProperties();

        assertEquals("20", new StreamsConfig(withRequired(plain)).getProducerConfigs("client").get("linger.ms"));
        assertEquals("30", new StreamsConfig(withRequired(prefixed)).getProducerConfigs("client").get("linger.ms"));
    }

    @Test
    void theProducersLingerIsKafkasClientDefaultRatherThanKafkaStreams100MsUnlessTheOperatorSetsOne() {
        Properties defaults = new EnforcerConfig(Map.of()).streamsProperties();

        assertEquals(String.valueOf(EnforcerConfig.PRODUCER_LINGER_MS),
                String.valueOf(new StreamsConfig(withRequired(defaults)).getProducerConfigs("client").get("linger.ms")));
        Properties kafkaStreamsAlone = new Properties();
        kafkaStreamsAlone.put(StreamsConfig.APPLICATION_ID_CONFIG, "plain");
        assertEquals("100", String.valueOf(new StreamsConfig(withRequired(kafkaStreamsAlone)).getProducerConfigs("client")
                .get("linger.ms")), "Kafka Streams' own default, which the enforcer's replaces");
    }

    @Test
    void theProducersBatchHolds128KiBUnlessTheOperatorSetsOnePlainOrPrefixed() {
        Properties defaults = new EnforcerConfig(Map.of()).streamsProperties();
        Properties plain = new EnforcerConfig(Map.of("batch.size", "32768")).streamsProperties();
        Properties prefixed = new EnforcerConfig(Map.of("producer.batch.size", "65536")).streamsProperties();

        assertEquals(String.valueOf(128 * 1024),
                String.valueOf(new StreamsConfig(withRequired(defaults)).getProducerConfigs("client").get("batch.size")));
        assertEquals("32768", new StreamsConfig(withRequired(plain)).getProducerConfigs("client").get("batch.size"));
        assertEquals("65536", new StreamsConfig(withRequired(prefixed)).getProducerConfigs("client").get("batch.size"));
    }

    @Test
    void theProducersFirstRetryBackOffIsShortUnlessTheOperatorSetsOnePlainOrPrefixed() {
        Properties defaults = new EnforcerConfig(Map.of()).streamsProperties();
        Properties plain = new EnforcerConfig(Map.of("retry.backoff.ms", "50")).streamsProperties();
        Properties prefixed = new EnforcerConfig(Map.of("producer.retry.backoff.ms", "70")).streamsProperties();

        assertEquals(String.valueOf(EnforcerConfig.PRODUCER_RETRY_BACKOFF_MS),
                String.valueOf(new StreamsConfig(withRequired(defaults)).getProducerConfigs("client").get("retry.backoff.ms")));
        assertEquals("50", new StreamsConfig(withRequired(plain)).getProducerConfigs("client").get("retry.backoff.ms"));
        assertEquals("70", new StreamsConfig(withRequired(prefixed)).getProducerConfigs("client").get("retry.backoff.ms"));
    }

    @Test
    void theProducersCompressWithSnappyUnlessTheOperatorSetsACodecPlainOrPrefixed() {
        Properties defaults = new EnforcerConfig(Map.of()).streamsProperties();
        Properties plain = new EnforcerConfig(Map.of("compression.type", "lz4")).streamsProperties();
        Properties prefixed = new EnforcerConfig(Map.of("producer.compression.type", "none")).streamsProperties();

        assertEquals("snappy", new StreamsConfig(withRequired(defaults)).getProducerConfigs("client").get("compression.type"));
        assertEquals("lz4", new StreamsConfig(withRequired(plain)).getProducerConfigs("client").get("compression.type"));
        assertEquals("none", new StreamsConfig(withRequired(prefixed)).getProducerConfigs("client").get("compression.type"));
    }

    private static Properties withRequired(Properties props) {
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        return props;
    }

    @Test
    void readsEnforcerSettingsGivenAsStrings() {
        EnforcerConfig config = new EnforcerConfig(Map.of(
                EnforcerConfig.TOPIC_PREFIX_CONFIG, "acme.quota",
                EnforcerConfig.REQUEST_PARTITIONS_CONFIG, "12",
                EnforcerConfig.DEFAULT_PLAN_CONFIG, "free",
                EnforcerConfig.REQUEST_MAX_BYTES_CONFIG, "1024",
                EnforcerConfig.REQUEST_MAX_COST_CONFIG, "50",
                EnforcerConfig.EXPIRY_INTERVAL_MS_CONFIG, "1000",
                EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG, "0"));

        assertEquals("acme.quota", config.topicPrefix());
        assertEquals(12, config.requestPartitions());
        assertEquals("free", config.defaultPlan());
        assertEquals(1024, config.requestMaxBytes());
        assertEquals(50L, config.requestMaxCost());
        assertEquals(1_000L, config.expiryIntervalMs());
        assertEquals(0, config.deadLetterMaxBytes());
    }

    @Test
    void treatsBlankDefaultPlanAsNone() {
        assertNull(new EnforcerConfig(Map.of(EnforcerConfig.DEFAULT_PLAN_CONFIG, "  ")).defaultPlan());
    }

    @Test
    void passesArbitraryKafkaSettingsThroughToStreams() {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";";
        EnforcerConfig config = new EnforcerConfig(Map.of(
                "bootstrap.servers", "broker-1:9092,broker-2:9092",
                "security.protocol", "SASL_SSL",
                "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", jaas,
                "producer.linger.ms", "5",
                "num.stream.threads", 4));

        Properties props = config.streamsProperties();

        assertEquals("broker-1:9092,broker-2:9092", props.get("bootstrap.servers"));
        assertEquals("SASL_SSL", props.get("security.protocol"));
        assertEquals("PLAIN", props.get("sasl.mechanism"));
        assertEquals(jaas, props.get("sasl.jaas.config"));
        assertEquals("5", props.get("producer.linger.ms"));
        assertEquals(4, props.get("num.stream.threads"));
    }

    @Test
    void keepsEnforcerOwnSettingsOutOfStreamsProperties() {
        EnforcerConfig config = new EnforcerConfig(Map.of(
                EnforcerConfig.TOPIC_PREFIX_CONFIG, "acme",
                EnforcerConfig.REQUEST_PARTITIONS_CONFIG, "3",
                EnforcerConfig.DEFAULT_PLAN_CONFIG, "free",
                EnforcerConfig.REQUEST_MAX_BYTES_CONFIG, "1024",
                EnforcerConfig.REQUEST_MAX_COST_CONFIG, "50",
                EnforcerConfig.EXPIRY_INTERVAL_MS_CONFIG, "5000",
                EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG, "100",
                "security.protocol", "SSL"));

        Properties props = config.streamsProperties();

        for (String own : EnforcerConfig.definition().names()) {
            assertFalse(props.containsKey(own), own + " leaked into the streams properties");
        }
        assertEquals("SSL", props.get("security.protocol"));
    }

    @Test
    void theHttpApiIsOpenAndListsKeysPlainUnlessATokenFileAndMaskingAreSet() {
        EnforcerConfig defaults = new EnforcerConfig(Map.of());
        EnforcerConfig secured = new EnforcerConfig(Map.of(EnforcerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, " /etc/q/tokens ",
                EnforcerConfig.HTTP_MASK_API_KEYS_CONFIG, "true"));

        assertNull(defaults.httpAuthTokensFile());
        assertFalse(defaults.httpMaskApiKeys());
        assertEquals(java.nio.file.Path.of("/etc/q/tokens"), secured.httpAuthTokensFile());
        assertTrue(secured.httpMaskApiKeys());
        ConfigException e = assertThrows(ConfigException.class,
                () -> new EnforcerConfig(Map.of(EnforcerConfig.HTTP_MASK_API_KEYS_CONFIG, "sometimes")));
        assertTrue(e.getMessage().contains(EnforcerConfig.HTTP_MASK_API_KEYS_CONFIG) && e.getMessage().contains("sometimes"));
    }

    @Test
    void turnsTaskIdlingOffUnlessTheUserSetsIt() {
        assertEquals(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED,
                new EnforcerConfig(Map.of()).streamsProperties().get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG));
        assertEquals("0", new EnforcerConfig(Map.of(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, "0")).streamsProperties()
                .get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG));
    }

    @Test
    void leavesEarlyCommitsByUncommittedBytesToTransactionalStateStores() {
        String bound = StreamsConfig.STATESTORE_UNCOMMITTED_MAX_BYTES_CONFIG;
        assertEquals(-1L, new EnforcerConfig(Map.of()).streamsProperties().get(bound));
        assertNull(new EnforcerConfig(Map.of(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, "true"))
                .streamsProperties().get(bound));
        assertEquals("1048576", new EnforcerConfig(Map.of(bound, "1048576")).streamsProperties().get(bound));
    }

    @Test
    void letsUserSetProcessingGuaranteeAndApplicationIdWin() {
        Properties props = new EnforcerConfig(Map.of(
                StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE,
                StreamsConfig.APPLICATION_ID_CONFIG, "quota-enforcer-eu")).streamsProperties();

        assertEquals("at_least_once", props.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
        assertEquals("quota-enforcer-eu", props.get(StreamsConfig.APPLICATION_ID_CONFIG));
    }

    @Test
    void returnsFreshStreamsPropertiesOnEveryCall() {
        EnforcerConfig config = new EnforcerConfig(Map.of("security.protocol", "SSL"));

        Properties first = config.streamsProperties();
        first.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        first.put("security.protocol", "PLAINTEXT");
        first.put("added.by.caller", "x");
        first.remove(StreamsConfig.APPLICATION_ID_CONFIG);
        Properties second = config.streamsProperties();

        assertNotSame(first, second);
        assertEquals(StreamsConfig.EXACTLY_ONCE_V2, second.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
        assertEquals("SSL", second.get("security.protocol"));
        assertEquals("quota-enforcer", second.get(StreamsConfig.APPLICATION_ID_CONFIG));
        assertFalse(second.containsKey("added.by.caller"));
    }

    @Test
    void isNotAffectedByLaterChangesToTheSettingsMap() {
        Map<String, Object> settings = new HashMap<>(Map.of("security.protocol", "SSL"));
        EnforcerConfig config = new EnforcerConfig(settings);

        settings.put("security.protocol", "PLAINTEXT");
        settings.put("client.id", "late");

        assertEquals("SSL", config.streamsProperties().get("security.protocol"));
        assertFalse(config.streamsProperties().containsKey("client.id"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(textBlock = """
            quota.requests.partitions,   0
            quota.requests.partitions,   -3
            quota.requests.partitions,   many
            quota.request.max.cost,      0
            quota.request.max.cost,      1000000001
            quota.expiry.interval.ms,    10
            quota.expiry.interval.ms,    999
            quota.usage.interval.ms,     9
            quota.request.max.bytes,     255
            quota.request.max.bytes,     16777217
            quota.dead.letter.max.bytes, -1
            quota.topic.prefix,          ''
            quota.http.port,             -2
            quota.http.port,             65536
            quota.http.advertised.host,  ''
            """)
    void rejectsBadValueNamingSettingAndValue(String setting, String value) {
        ConfigException e = assertThrows(ConfigException.class, () -> new EnforcerConfig(Map.of(setting, value)));

        assertTrue(e.getMessage().contains(setting), e.getMessage());
        assertTrue(e.getMessage().contains(value), e.getMessage());
    }

    @Test
    void rejectsZeroPartitionsWithMessageNamingSettingAndValue() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new EnforcerConfig(Map.of(EnforcerConfig.REQUEST_PARTITIONS_CONFIG, 0)));

        assertTrue(e.getMessage().contains("quota.requests.partitions"), e.getMessage());
        assertTrue(e.getMessage().contains("value 0"), e.getMessage());
    }

    @Test
    void rejectsExpiryIntervalOfTenMillisecondsNamingSettingAndValue() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new EnforcerConfig(Map.of(EnforcerConfig.EXPIRY_INTERVAL_MS_CONFIG, 10L)));

        assertTrue(e.getMessage().contains("quota.expiry.interval.ms"), e.getMessage());
        assertTrue(e.getMessage().contains("value 10 "), e.getMessage());
    }

    @Test
    void rejectsZeroMaxCostNamingSettingAndValue() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new EnforcerConfig(Map.of(EnforcerConfig.REQUEST_MAX_COST_CONFIG, "0")));

        assertTrue(e.getMessage().contains("quota.request.max.cost"), e.getMessage());
        assertTrue(e.getMessage().contains("value 0"), e.getMessage());
    }

    @Test
    void rejectsMisspeltEnforcerSettingNamingIt() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> new EnforcerConfig(Map.of("quota.topic.prefx", "billing")));

        assertTrue(e.getMessage().contains("quota.topic.prefx"), e.getMessage());
        assertTrue(e.getMessage().contains("billing"), e.getMessage());
    }

    @Test
    void rejectsSettingWithoutValueNamingIt() {
        Map<String, Object> settings = new HashMap<>();
        settings.put("client.id", null);

        ConfigException e = assertThrows(ConfigException.class, () -> new EnforcerConfig(settings));

        assertTrue(e.getMessage().contains("client.id"), e.getMessage());
    }
}

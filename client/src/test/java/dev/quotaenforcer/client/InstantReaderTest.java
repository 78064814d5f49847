package dev.quotaenforcer.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.Timestamps;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InstantReaderTest {

    /** Jackson as the client read decisions before: JavaTimeModule's formatter for every instant. */
    private static final ObjectMapper JACKSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final long FIRST_SECOND_OF_YEAR_0 = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    private static final long LAST_SECOND_OF_YEAR_9999 = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();

    @Test
    void readsEveryInstantTheEnforcerWritesAsInstantParseDoes() {
        SplittableRandom random = new SplittableRandom(20261206);
        int[] nanosSteps = {1_000_000_000, 1_000_000, 1_000, 1};
        for (int i = 0; i < 200_000; i++) {
            long second = random.nextLong(FIRST_SECOND_OF_YEAR_0, LAST_SECOND_OF_YEAR_9999 + 1);
            int step = nanosSteps[random.nextInt(nanosSteps.length)];
            int nanos = step == 1_000_000_000 ? 0 : random.nextInt(1_000_000_000 / step) * step;
            Instant instant = Instant.ofEpochSecond(second, nanos);
            assertEquals(instant, parse(instant.toString()), instant::toString);
        }
    }

    @Test
    void readsAFractionOfAnyLengthUpToNineDigitsAsInstantParseDoes() {
        SplittableRandom random = new SplittableRandom(7);
        for (int digits = 1; digits <= 9; digits++) {
            for (int i = 0; i < 1_000; i++) {
                StringBuilder fraction = new StringBuilder();
                for (int d = 0; d < digits; d++) {
                    fraction.append((char) ('0' + random.nextInt(10)));
                }
                String text = "2026-11-30T23:59:59." + fraction + "Z";
                assertEquals(Instant.parse(text), parse(text), text);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-11-30T12:01:00+01:00", "2026-11-30T12:01:00z", "2026-11-30T12:01:00.Z",
            "2026-11-30T12:01:00.1234567890Z", "2026-11-30T12:01:00.1a3Z", "2026-12-31T23:59:60Z", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z",
            "2026-11-30T24:00:00Z", "2026-11-30T12:60:00Z", " 2026-11-30T12:01:00Z", "2026-11-30 12:01:00Z",
            "+10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "2026-11-3OT12:01:00Z", "1796040000000", ""})
    void leavesEveryOtherTextToJacksonsOwnReader(String text) throws Exception {
        assertNull(parse(text), text);
        byte[] json = ("{\"requestId\": \"r-1\", \"eventTime\": \"" + text + "\"}").getBytes(StandardCharsets.UTF_8);
        assertEquals(outcome(JACKSON, json), outcome(RequestRecords.JSON, json), text);
    }

    @Test
    void isTheReaderTheClientsMapperUsesForInstants() throws Exception {
        DefaultDeserializationContext context = ((DefaultDeserializationContext) RequestRecords.JSON.getDeserializationContext())
                .createInstance(RequestRecords.JSON.getDeserializationConfig(), null, null);
        assertInstanceOf(InstantReader.class, context.findRootValueDeserializer(RequestRecords.JSON.constructType(Instant.class)));
    }

    @Test
    void readsADecisionAsJacksonAloneDid() throws Exception {
        byte[] json = ("{\"requestId\": \"r-2\", \"apiKey\": \"k-1\", \"plan\": \"free\", \"allowed\": false,"
                + " \"reason\": \"RATE_LIMITED\", \"policy\": \"per-minute\", \"limit\": 100, \"remaining\": 0,"
                + " \"resetSeconds\": 60, \"retryAfterSeconds\": 1, \"delayMs\": 0, \"eventTime\": \"2026-11-30T12:01:00.250Z\","
                + " \"headers\": {\"Retry-After\": \"1\", \"RateLimit-Limit\": \"100\"}}").getBytes(StandardCharsets.UTF_8);
        Decision decision = RequestRecords.read(json, Decision.class);
        assertNotNull(decision);
        assertEquals(JACKSON.readValue(json, Decision.class), decision);
        assertEquals(new Decision("r-2", "k-1", "free", false, Reason.RATE_LIMITED, "per-minute", 100, 0, 60, 1, 0,
                Instant.parse("2026-11-30T12:01:00.250Z"), Map.of("Retry-After", "1", "RateLimit-Limit", "100")), decision);
    }

    @Test
    void readsAnEpochNumberAsJacksonAloneDid() throws Exception {
        byte[] json = "{\"requestId\": \"r-3\", \"eventTime\": 1796040000.5}".getBytes(StandardCharsets.UTF_8);
        assertEquals(outcome(JACKSON, json), outcome(RequestRecords.JSON, json));
    }

    private static Instant parse(String text) {
        return Timestamps.utcInstant(text);
    }

    /** The decision a mapper reads, or the class of what it threw. */
    private static Object outcome(ObjectMapper mapper, byte[] json) {
        try {
            return mapper.readValue(json, Decision.class);
        } catch (Exception e) {
            return e.getClass();
        }
    }
}

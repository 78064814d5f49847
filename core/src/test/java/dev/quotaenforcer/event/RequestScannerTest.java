package dev.quotaenforcer.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The byte scanner reads the plain requests gateways send, and never reads a record otherwise than Jackson's token read. */
class RequestScannerTest {

    private static final long MAX_COST = 1_000;
    private static final long MAX_AHEAD = 3_600_000;
    private static final long RECORD_TIME = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();

    private final RequestParser jackson = new RequestParser(1 << 20, MAX_COST, MAX_AHEAD);

    @Test
    void readsTheRequestTheJavaClientWrites() {
        RequestEvent read = scan("{\"cost\":2,\"requestId\":\"req-9\",\"timestamp\":1764504000000,\"apiKey\":\"key-1\"}");

        assertEquals(new RequestEvent("req-9", "key-1", 2, 1_764_504_000_000L), read);
    }

    @Test
    void readsAnIsoTimestampWithSpaceAroundEveryToken() {
        RequestEvent read = scan(" {\n\t\"requestId\" : \"r\" ,\r\n \"apiKey\":\"k\", \"timestamp\" : \"2026-11-30T11:59:00.250Z\" } \n");

        assertEquals(new RequestEvent("r", "k", 1, Instant.parse("2026-11-30T11:59:00.250Z").toEpochMilli()), read);
    }

    @Test
    void defaultsCostAndTimeAndSkipsFieldsItDoesNotRead() {
        RequestEvent read = scan("{\"gateway\":\"eu-1\",\"requestId\":\"r\",\"retry\":false,\"apiKey\":\"k\",\"cost\":null,"
                + "\"timestamp\":null,\"weight\":-12,\"note\":true,\"trace\":null}");

        assertEquals(new RequestEvent("r", "k", 1, RECORD_TIME), read);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"requestId\":\"r\\u0031\",\"apiKey\":\"k\"}",
            "{\"requestId\":\"r\",\"apiKey\":\"kéy\"}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\",\"cost\":2.0}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\",\"cost\":1e0}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\",\"cost\":01}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\",\"meta\":{\"cost\":5}}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\",\"tags\":[]}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\",\"apiKey\":\"k\"}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\"} {}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\",}",
            "{\"requestId\":\"r\",\"apiKey\":\"k\"",
            "{\"requestId\":\"r\" \"apiKey\":\"k\"}",
            "[{\"requestId\":\"r\",\"apiKey\":\"k\"}]",
            "{}",
            ""})
    void leavesToJacksonWhatItIsNotSureOf(String json) {
        assertNull(scan(json), json);
    }

    @Test
    void readsSeededVariantsAsJacksonsTokenReadDoes() {
        String[] names = {"requestId", "apiKey", "cost", "timestamp", "gateway", "request\\u0049d", "cöst"};
        String[] values = {"\"r-1\"", "\"\"", "\"" + "k".repeat(RequestParser.MAX_ID_LENGTH) + "\"",
                "\"" + "k".repeat(RequestParser.MAX_ID_LENGTH + 1) + "\"", "null", "0", "-0", "1", "01", "1000", "1001", "-5",
                "2.5", "1e3", "-", "99999999999999999999", "999999999999999999", String.valueOf(RECORD_TIME),
                String.valueOf(RECORD_TIME + MAX_AHEAD), String.valueOf(RECORD_TIME + MAX_AHEAD + 1),
                "\"2026-11-30T12:00:00Z\"", "\"2026-11-30T12:00:00.5Z\"", "\"2026-11-30T12:00:00+01:00\"", "\"yesterday\"",
                "\"\\\"q\\\"\"", "\"tab\there\"", "\"ünïcode\"", "true", "false", "nul", "truex", "[1, 2]", "{\"cost\": 5}"};
        String[] spaces = {"", "", "", " ", "\n", "\t ", "\r\n"};
        Random random = new Random(20261203L);
        int read = 0;
        for (int i = 0; i < 50_000; i++) {
            List<String> members = new ArrayList<>();
            if (random.nextInt(10) < 9) {
                members.add("\"requestId\":\"r-" + i + "\"");
            }
            if (random.nextInt(10) < 9) {
                members.add("\"apiKey\":\"k-" + i % 7 + "\"");
            }
            for (int f = random.nextInt(4); f > 0; f--) {
                members.add("\"" + names[random.nextInt(names.length)] + "\"" + pick(spaces, random) + ":" + pick(spaces, random)
                        + values[random.nextInt(values.length)]);
            }
            Collections.shuffle(members, random);
            String json = pick(spaces, random) + "{" + pick(spaces, random)
                    + String.join(pick(spaces, random) + "," + pick(spaces, random), members) + pick(spaces, random) + "}"
                    + (random.nextInt(30) == 0 ? "x" : pick(spaces, random));
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            if (random.nextInt(10) == 0) {
                bytes = mutated(bytes, random);
            }

            RequestEvent scanned = RequestScanner.read(bytes, RECORD_TIME, MAX_COST, MAX_AHEAD);

            if (scanned != null) {
                assertEquals(jackson.readWellFormed(bytes, RECORD_TIME), scanned, new String(bytes, StandardCharsets.UTF_8));
                read++;
            }
        }
        assertTrue(read > 10_000, "the variants include enough plain requests to exercise the scanner: " + read);
    }

    private static byte[] mutated(byte[] bytes, Random random) {
        if (random.nextBoolean() || bytes.length == 0) {
            return Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
        }
        byte[] copy = bytes.clone();
        copy[random.nextInt(copy.length)] = (byte) random.nextInt(256);
        return copy;
    }

    private static String pick(String[] choices, Random random) {
        return choices[random.nextInt(choices.length)];
    }

    private static RequestEvent scan(String json) {
        return RequestScanner.read(json.getBytes(StandardCharsets.UTF_8), RECORD_TIME, MAX_COST, MAX_AHEAD);
    }
}

package dev.quotaenforcer.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Request event parsing: accepted events with their defaults, and each rejection's code, reason and readable ids. */
class RequestParserTest {

    private static final int MAX_BYTES = 512;
    private static final long MAX_COST = 1_000;
    private static final long RECORD_TIME = Instant.parse("2026-11-30T12:00:00Z").toEpochMilli();

    private static final long MAX_AHEAD = 3_600_000;

    private final RequestParser parser = new RequestParser(MAX_BYTES, MAX_COST, MAX_AHEAD);

    @Test
    void parsesFullEvent() {
        RequestEvent event = accepted("""
                {"requestId": "req-1", "apiKey": "key-1", "cost": 3, "timestamp": "2026-11-30T12:34:56.789Z"}
                """);

        assertEquals(new RequestEvent("req-1", "key-1", 3,
                Instant.parse("2026-11-30T12:34:56.789Z").toEpochMilli()), event);
    }

    @Test
    void defaultsCostToOne() {
        assertEquals(1, accepted("{\"requestId\": \"r\", \"apiKey\": \"k\"}").cost());
    }

    @Test
    void defaultsNullCostToOne() {
        assertEquals(1, accepted("{\"requestId\": \"r\", \"apiKey\": \"k\", \"cost\": null}").cost());
    }

    @Test
    void acceptsCostOfExactlyTheMaximum() {
        assertEquals(MAX_COST, accepted("{\"requestId\": \"r\", \"apiKey\": \"k\", \"cost\": 1000}").cost());
    }

    @Test
    void readsIsoTimestampInUtc() {
        RequestEvent event = accepted("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T05:00:00Z\"}");

        assertEquals(Instant.parse("2026-11-30T05:00:00Z").toEpochMilli(), event.timestamp());
    }

    @Test
    void readsIsoTimestampWithOffset() {
        RequestEvent event = accepted(
                "{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T12:00:00.250+07:00\"}");

        assertEquals(Instant.parse("2026-11-30T05:00:00.250Z").toEpochMilli(), event.timestamp());
    }

    @Test
    void readsTimestampAsEpochMilliseconds() {
        RequestEvent event = accepted("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": 1796040000123}");

        assertEquals(1_796_040_000_123L, event.timestamp());
    }

    @Test
    void defaultsTimestampToRecordTimestamp() {
        assertEquals(RECORD_TIME, accepted("{\"requestId\": \"r\", \"apiKey\": \"k\"}").timestamp());
    }

    @Test
    void defaultsNullTimestampToRecordTimestamp() {
        assertEquals(RECORD_TIME, accepted("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": null}").timestamp());
    }

    @Test
    void ignoresUnknownFields() {
        RequestEvent event = accepted("""
                {"requestId": "r", "apiKey": "k", "gateway": {"region": "eu", "hops": [1, 2]}, "path": "/v1/items"}
                """);

        assertEquals(new RequestEvent("r", "k", 1, RECORD_TIME), event);
    }

    @Test
    void acceptsIdsOfExactly256Characters() {
        String id = "r".repeat(RequestParser.MAX_ID_LENGTH);
        String key = "k".repeat(RequestParser.MAX_ID_LENGTH);

        RequestEvent event = requestOf(new RequestParser(4_096, MAX_COST, MAX_AHEAD)
                .parse(bytes("{\"requestId\": \"" + id + "\", \"apiKey\": \"" + key + "\"}"), RECORD_TIME));

        assertNotNull(event);
        assertEquals(id, event.requestId());
        assertEquals(key, event.apiKey());
    }

    @Test
    void acceptsValueOfExactlyMaxBytes() {
        String json = padded("{\"requestId\": \"r\", \"apiKey\": \"k\", \"pad\": \"%s\"}", MAX_BYTES);

        assertNotNull(requestOf(parser.parse(bytes(json), RECORD_TIME)));
    }

    @Test
    void rejectsNullValueAsEmptyWithoutIds() {
        RequestParser.Parsed parsed = parser.parse(null, RECORD_TIME);

        assertEquals(new InvalidRequest("EMPTY", "the record has no value", null, null), invalidOf(parsed));
        assertFalse(invalidOf(parsed).answerable());
    }

    @Test
    void rejectsOversizeValueWithoutReadingIds() {
        String json = padded("{\"requestId\": \"r\", \"apiKey\": \"k\", \"pad\": \"%s\"}", MAX_BYTES + 1);

        InvalidRequest invalid = rejected(json);

        assertEquals("OVERSIZE", invalid.error());
        assertTrue(invalid.reason().contains("513"), invalid.reason());
        assertTrue(invalid.reason().contains("512"), invalid.reason());
        assertNull(invalid.requestId());
        assertNull(invalid.apiKey());
        assertFalse(invalid.answerable());
    }

    @Test
    void rejectsRequestIdLongerThan256Characters() {
        String id = "r".repeat(RequestParser.MAX_ID_LENGTH + 1);

        InvalidRequest invalid = invalidOf(new RequestParser(4_096, MAX_COST, MAX_AHEAD)
                .parse(bytes("{\"requestId\": \"" + id + "\", \"apiKey\": \"k\"}"), RECORD_TIME));

        assertEquals("INVALID_FIELD", invalid.error());
        assertTrue(invalid.reason().startsWith("requestId: "), invalid.reason());
        assertTrue(invalid.reason().contains("..."), "the value is abbreviated: " + invalid.reason());
        assertNull(invalid.requestId());
        assertEquals("k", invalid.apiKey());
        assertFalse(invalid.answerable());
    }

    @Test
    void rejectsApiKeyLongerThan256Characters() {
        String key = "k".repeat(RequestParser.MAX_ID_LENGTH + 1);

        InvalidRequest invalid = invalidOf(new RequestParser(4_096, MAX_COST, MAX_AHEAD)
                .parse(bytes("{\"requestId\": \"r\", \"apiKey\": \"" + key + "\"}"), RECORD_TIME));

        assertEquals("INVALID_FIELD", invalid.error());
        assertTrue(invalid.reason().startsWith("apiKey: "), invalid.reason());
        assertEquals("r", invalid.requestId());
        assertNull(invalid.apiKey());
        assertFalse(invalid.answerable());
    }

    /*
     * Each row: the record value, the error code, the request id and API key that must still be read
     * (empty: none), and a fragment of the reason naming the field or value.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            not json at all                                                        | INVALID_JSON  | -   | -   | not valid JSON
            ''                                                                     | INVALID_JSON  | -   | -   | JSON object
            [{"requestId": "r", "apiKey": "k"}]                                    | INVALID_JSON  | -   | -   | must be a JSON object
            "r"                                                                    | INVALID_JSON  | -   | -   | must be a JSON object
            {"apiKey": "k"}                                                        | INVALID_FIELD | -   | k   | requestId: is missing
            {"requestId": null, "apiKey": "k"}                                     | INVALID_FIELD | -   | k   | requestId: is missing
            {"requestId": "r"}                                                     | INVALID_FIELD | r   | -   | apiKey: is missing
            {}                                                                     | INVALID_FIELD | -   | -   | requestId: is missing
            {"requestId": "r", "apiKey": 12345}                                    | INVALID_FIELD | r   | -   | apiKey: 12345
            {"requestId": 7, "apiKey": "k"}                                        | INVALID_FIELD | -   | k   | requestId: 7
            {"requestId": "", "apiKey": "k"}                                       | INVALID_FIELD | -   | k   | requestId: ""
            {"requestId": "r", "apiKey": ["k"]}                                    | INVALID_FIELD | r   | -   | apiKey: ["k"]
            {"requestId": "r", "apiKey": "k", "cost": 0}                           | INVALID_FIELD | r   | k   | cost: 0
            {"requestId": "r", "apiKey": "k", "cost": -1}                          | INVALID_FIELD | r   | k   | cost: -1
            {"requestId": "r", "apiKey": "k", "cost": 1001}                        | INVALID_FIELD | r   | k   | cost: 1001
            {"requestId": "r", "apiKey": "k", "cost": 99999999999999999999}        | INVALID_FIELD | r   | k   | cost: 99999999999999999999
            {"requestId": "r", "apiKey": "k", "cost": 1.5}                         | INVALID_FIELD | r   | k   | cost: 1.5
            {"requestId": "r", "apiKey": "k", "cost": 2.0}                         | INVALID_FIELD | r   | k   | cost: 2.0
            {"requestId": "r", "apiKey": "k", "cost": "3"}                         | INVALID_FIELD | r   | k   | cost: "3"
            {"requestId": "r", "apiKey": "k", "timestamp": "yesterday"}            | INVALID_FIELD | r   | k   | timestamp: "yesterday"
            {"requestId": "r", "apiKey": "k", "timestamp": "2026-11-30T12:00:00"}  | INVALID_FIELD | r   | k   | timestamp: "2026-11-30T12:00:00"
            {"requestId": "r", "apiKey": "k", "timestamp": "1796040000000"}        | INVALID_FIELD | r   | k   | timestamp: "1796040000000"
            {"requestId": "r", "apiKey": "k", "timestamp": true}                   | INVALID_FIELD | r   | k   | timestamp: true
            {"requestId": "r", "apiKey": "k", "timestamp": 1.5e12}                 | INVALID_FIELD | r   | k   | timestamp: 1.5E12
            {"requestId": "r", "apiKey": "k", "timestamp": {"ms": 1}}              | INVALID_FIELD | r   | k   | timestamp: {"ms":1}
            {"requestId": "r", "apiKey": "k", "timestamp": "+999999999-12-31T23:59:59Z"} | INVALID_FIELD | r | k | timestamp: "+999999999
            """)
    void rejectsInvalidEventWithCodeAndReadableIds(String json, String error, String requestId, String apiKey,
                                                   String reasonFragment) {
        InvalidRequest invalid = rejected(json);

        assertEquals(error, invalid.error(), invalid.reason());
        assertEquals(requestId, invalid.requestId(), "requestId");
        assertEquals(apiKey, invalid.apiKey(), "apiKey");
        assertEquals(requestId != null && apiKey != null, invalid.answerable());
        assertTrue(invalid.reason().contains(reasonFragment), () -> "reason lacks '" + reasonFragment + "': "
                + invalid.reason());
    }

    @Test
    void reportsTheFirstOfTwoBadIdsAndKeepsNeither() {
        InvalidRequest invalid = rejected("{\"requestId\": 1, \"apiKey\": 2}");

        assertTrue(invalid.reason().startsWith("requestId: 1"), invalid.reason());
        assertNull(invalid.requestId());
        assertNull(invalid.apiKey());
    }

    @Test
    void answersInvalidCostWithBothIds() {
        InvalidRequest invalid = rejected("{\"requestId\": \"req-9\", \"apiKey\": \"key-9\", \"cost\": 0}");

        assertTrue(invalid.answerable());
        assertEquals("req-9", invalid.requestId());
        assertEquals("key-9", invalid.apiKey());
    }

    private RequestEvent accepted(String json) {
        return requestOf(parser.parse(bytes(json), RECORD_TIME));
    }

    private InvalidRequest rejected(String json) {
        return invalidOf(parser.parse(bytes(json), RECORD_TIME));
    }

    private static RequestEvent requestOf(RequestParser.Parsed parsed) {
        return assertInstanceOf(RequestParser.Parsed.Accepted.class, parsed, () -> "rejected: " + parsed).request();
    }

    private static InvalidRequest invalidOf(RequestParser.Parsed parsed) {
        return assertInstanceOf(RequestParser.Parsed.Rejected.class, parsed, () -> "accepted: " + parsed).invalid();
    }

    /** Fills the single %s of {@code template} so that the result is exactly {@code length} bytes. */
    private static String padded(String template, int length) {
        String json = String.format(template, "x".repeat(length - (template.length() - 2)));
        assertEquals(length, bytes(json).length);
        return json;
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void acceptsTimestampUpToTheAllowedLeadOverTheRecord() {
        String json = "{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": " + (RECORD_TIME + MAX_AHEAD) + "}";

        assertEquals(RECORD_TIME + MAX_AHEAD, accepted(json).timestamp());
    }

    @Test
    void rejectsTimestampFurtherAheadOfTheRecordAsAnswerable() {
        String json = "{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T13:00:00.001Z\"}";

        InvalidRequest invalid = invalidOf(parser.parse(bytes(json), RECORD_TIME));

        assertEquals("INVALID_FIELD", invalid.error());
        assertEquals("timestamp: \"2026-11-30T13:00:00.001Z\" is 3600001 ms ahead of the record's timestamp; "
                + "at most 3600000 ms is accepted", invalid.reason());
        assertTrue(invalid.answerable());
    }

    @Test
    void readsEveryInputAsTheExplainingTreeReadWouldOnSeededVariants() {
        // The token-by-token fast path must never accept what the tree read rejects, nor read a field otherwise.
        String[] fields = {"\"requestId\"", "\"apiKey\"", "\"cost\"", "\"timestamp\"", "\"gateway\""};
        String[] values = {"\"r-1\"", "\"\"", "\"" + "k".repeat(RequestParser.MAX_ID_LENGTH + 1) + "\"", "null", "0", "1",
                "1000", "1001", "-5", "2.5", "1e3", "99999999999999999999", String.valueOf(RECORD_TIME),
                String.valueOf(RECORD_TIME + MAX_AHEAD + 1), "\"2026-11-30T12:00:00Z\"", "\"2026-11-30T12:00:00+01:00\"",
                "\"yesterday\"", "true", "[1, 2]", "{\"nested\": {\"cost\": 5}}"};
        RequestParser roomy = new RequestParser(4096, MAX_COST, MAX_AHEAD);
        Random random = new Random(20261130L);
        int accepted = 0;
        for (int i = 0; i < 20_000; i++) {
            List<String> members = new ArrayList<>();
            if (random.nextInt(10) < 8) {
                members.add("\"requestId\": \"r-" + i + "\"");
            }
            if (random.nextInt(10) < 8) {
                members.add("\"apiKey\": \"k-" + i % 7 + "\"");
            }
            for (int f = random.nextInt(4); f > 0; f--) {
                members.add(fields[random.nextInt(fields.length)] + ": " + values[random.nextInt(values.length)]);
            }
            Collections.shuffle(members, random);
            StringBuilder json = new StringBuilder("{").append(String.join(", ", members));
            json.append(random.nextInt(20) == 0 ? "" : "}");
            byte[] input = bytes(json.toString());

            RequestParser.Parsed parsed = roomy.parse(input, RECORD_TIME);

            assertEquals(roomy.readExplaining(input, RECORD_TIME), parsed, json.toString());
            accepted += parsed instanceof RequestParser.Parsed.Accepted ? 1 : 0;
        }
        assertTrue(accepted > 500, "the variants include enough acceptable requests to exercise the fast path: " + accepted);
    }
}

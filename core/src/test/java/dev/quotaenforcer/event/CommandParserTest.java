package dev.quotaenforcer.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading admin commands: every type with its fields, and each kind of bad input named with its field and value. */
class CommandParserTest {

    private final CommandParser parser = new CommandParser(1024);

    private CommandParser.Parsed parse(String json) {
        return parser.parse(json == null ? null : json.getBytes(StandardCharsets.UTF_8));
    }

    private static KeyCommand commandOf(CommandParser.Parsed parsed) {
        return assertInstanceOf(CommandParser.Parsed.Accepted.class, parsed, () -> "rejected: " + parsed).command();
    }

    private CommandParser.Parsed.Rejected rejected(String json) {
        CommandParser.Parsed parsed = parse(json);
        return assertInstanceOf(CommandParser.Parsed.Rejected.class, parsed, () -> "accepted: " + parsed);
    }

    @Test
    void readsEveryTypeWithItsFields() {
        assertEquals(KeyCommand.reset("k", null), commandOf(parse("{\"type\": \"reset\", \"apiKey\": \"k\"}")));
        assertEquals(KeyCommand.reset("k", "per-minute"),
                commandOf(parse("{\"type\": \"reset\", \"apiKey\": \"k\", \"policy\": \"per-minute\"}")));
        assertEquals(KeyCommand.grant("k", "hourly", 500),
                commandOf(parse("{\"type\": \"GRANT\", \"apiKey\": \"k\", \"policy\": \"hourly\", \"amount\": 500}")));
        assertEquals(KeyCommand.block("k", Instant.parse("2026-12-01T00:00:00Z")),
                commandOf(parse("{\"type\": \"block\", \"apiKey\": \"k\", \"until\": \"2026-12-01T01:00:00+01:00\"}")));
        assertEquals(KeyCommand.block("k", null), commandOf(parse("{\"type\": \"block\", \"apiKey\": \"k\"}")));
        assertEquals(KeyCommand.unblock("k"), commandOf(parse("{\"type\": \"unblock\", \"apiKey\": \"k\", \"gatewayNote\": 1}")));
    }

    @Test
    void readsTheAuditFields() {
        KeyCommand command = commandOf(parse("""
                {"type": "block", "apiKey": "k", "commandId": "c-1", "issuer": "alice", "reason": "scraping"}"""));

        assertEquals(KeyCommand.block("k", null).audited("c-1", "alice", "scraping"), command);
    }

    @Test
    void writesWhatItReads() throws Exception {
        KeyCommand command = KeyCommand.grant("k", "hourly", 5).audited("c-2", "bob", null);
        byte[] json = new ObjectMapper().findAndRegisterModules().writeValueAsBytes(command);

        assertEquals(command, commandOf(parser.parse(json)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"apiKey\": \"k\"}|INVALID_FIELD|type: is missing",
            "{\"type\": \"delete\", \"apiKey\": \"k\"}|INVALID_FIELD|type: \"delete\" must be one of reset, grant, block, unblock",
            "{\"type\": \"reset\"}|INVALID_FIELD|apiKey: is missing",
            "{\"type\": \"reset\", \"apiKey\": 7}|INVALID_FIELD|apiKey: 7 must be a string of 1 to 256 characters",
            "{\"type\": \"grant\", \"apiKey\": \"k\", \"amount\": 5}|INVALID_FIELD|policy: is missing",
            "{\"type\": \"grant\", \"apiKey\": \"k\", \"policy\": \"h\"}|INVALID_FIELD|amount: is missing",
            "{\"type\": \"grant\", \"apiKey\": \"k\", \"policy\": \"h\", \"amount\": 0}|INVALID_FIELD|amount: 0 must be a whole number from 1 to 1000000000",
            "{\"type\": \"grant\", \"apiKey\": \"k\", \"policy\": \"h\", \"amount\": 2.5}|INVALID_FIELD|amount: 2.5 must be a whole number from 1 to 1000000000",
            "{\"type\": \"block\", \"apiKey\": \"k\", \"until\": \"tomorrow\"}|INVALID_FIELD|until: \"tomorrow\" must be an ISO-8601 date-time with offset, e.g. 2026-12-01T00:00:00Z",
            "{\"type\": \"block\", \"apiKey\": \"k\", \"policy\": \"h\"}|INVALID_FIELD|policy: block takes no policy",
            "{\"type\": \"reset\", \"apiKey\": \"k\", \"amount\": 5}|INVALID_FIELD|amount: reset takes no amount",
            "{\"type\": \"unblock\", \"apiKey\": \"k\", \"until\": \"2026-12-01T00:00:00Z\"}|INVALID_FIELD|until: unblock takes no until",
            "{\"type\": \"unblock\", \"apiKey\": \"k\", \"reason\": 5}|INVALID_FIELD|reason: 5 must be a string of at most 1024 characters",
            "[1]|INVALID_JSON|must be a JSON object, got [1]",
    })
    void reportsBadInputWithItsFieldAndValue(String json, String error, String reason) {
        CommandParser.Parsed.Rejected parsed = rejected(json);

        assertEquals(error, parsed.error());
        assertEquals(reason, parsed.reason());
    }

    @Test
    void reportsEmptyOversizeAndBrokenValues() {
        assertEquals("EMPTY", rejected(null).error());
        assertEquals("OVERSIZE", rejected("{\"type\": \"reset\", \"apiKey\": \"" + "k".repeat(1100) + "\"}").error());
        assertEquals("INVALID_JSON", rejected("{\"type\": ").error());
    }
}

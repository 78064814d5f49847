package dev.quotaenforcer.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The token file: its format, its errors (which never quote a token) and how a presented token is matched. */
class AccessTokensTest {

    private static final String ALICE = "alice-token-0123456789";
    private static final String BOB = "Ym9iJ3MgdG9rZW4gaXMgbG9uZw==";
    private static final String UNNAMED = "unnamed.token_~+/0123";

    @Test
    void namedAndUnnamedTokensAreAcceptedAndCommentsBlankLinesAndCarriageReturnsSkipped() {
        AccessTokens tokens = AccessTokens.parse("# operators\r\nalice:" + ALICE + "\r\n\n  bob:" + BOB + "  \n"
                + UNNAMED + "\n", "tokens.txt");

        assertEquals(3, tokens.size());
        assertEquals("alice", tokens.callerOf(ALICE));
        assertEquals("bob", tokens.callerOf(BOB));
        assertEquals("line-5", tokens.callerOf(UNNAMED), "a token without a name is named after its line");
    }

    @Test
    void aTokenThatIsNotInTheFileIsNobodys() {
        AccessTokens tokens = AccessTokens.parse("alice:" + ALICE, "tokens.txt");

        assertNull(tokens.callerOf(null));
        assertNull(tokens.callerOf(""));
        assertNull(tokens.callerOf(ALICE.substring(0, ALICE.length() - 1)), "a prefix of a token");
        assertNull(tokens.callerOf(ALICE + "x"), "a token with more after it");
        assertNull(tokens.callerOf("alice:" + ALICE), "the line rather than the token");
        assertNull(tokens.callerOf(ALICE.toUpperCase()), "tokens are case-sensitive");
        assertNull(tokens.callerOf("a".repeat(100_000)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "short:abc123                          | line 1: the token has 6 characters",
            "bad\\u0020name:" + ALICE + "           | line 1: the name before ':'",
            ":" + ALICE + "                         | line 1: the name before ':'",
            "alice:secret token with spaces 12345  | line 1: the token may hold only",
            "alice:" + ALICE + "\\nalice:" + BOB + " | line 2: the name alice is already on line 1",
            "a:" + ALICE + "\\n\\nb:" + ALICE + "   | line 3: the same token as on line 1",
            "# only a comment                      | the file holds no token"})
    void aBadLineIsNamedByItsNumberWithoutItsToken(String file, String message) {
        String text = file.replace("\\n", "\n").replace("\\u0020", " ");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AccessTokens.parse(text, "t"));

        assertTrue(e.getMessage().startsWith(message), e.getMessage());
        for (String secret : new String[] {"abc123", ALICE, BOB, "secret token"}) {
            assertFalse(e.getMessage().contains(secret), e.getMessage());
        }
    }

    @Test
    void aFileThatCannotBeReadOrHoldsABadLineFailsNamingTheSettingAndTheFile(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.txt");
        ConfigException unreadable = assertThrows(ConfigException.class,
                () -> AccessTokens.load("quota.http.auth.tokens.file", missing));
        assertTrue(unreadable.getMessage().contains("quota.http.auth.tokens.file"), unreadable.getMessage());
        assertTrue(unreadable.getMessage().contains(missing.toString()), unreadable.getMessage());

        Path bad = Files.writeString(dir.resolve("bad.txt"), "alice:" + ALICE + "\nbob:short\n");
        ConfigException invalid = assertThrows(ConfigException.class,
                () -> AccessTokens.load("quota.http.auth.tokens.file", bad));
        assertTrue(invalid.getMessage().contains(bad.toString()) && invalid.getMessage().contains("line 2"),
                invalid.getMessage());
        assertFalse(invalid.getMessage().contains("short") || invalid.getMessage().contains(ALICE), invalid.getMessage());
    }

    @Test
    void aFileLoadsItsTokensAndSaysWhereTheyCameFrom(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("tokens.txt"), "alice:" + ALICE + "\n");
        AccessTokens tokens = AccessTokens.load("quota.http.auth.tokens.file", file);

        assertEquals("alice", tokens.callerOf(ALICE));
        assertEquals(file.toString(), tokens.source());
    }

    @Test
    void onlyTokensOfTheFilesFormAreWellFormed() {
        assertTrue(AccessTokens.isWellFormed(ALICE));
        assertTrue(AccessTokens.isWellFormed(BOB));
        assertFalse(AccessTokens.isWellFormed("short"));
        assertFalse(AccessTokens.isWellFormed(ALICE + "\r\nX-Injected: 1"));
        assertFalse(AccessTokens.isWellFormed("a".repeat(AccessTokens.MAX_TOKEN_LENGTH + 1)));
    }
}

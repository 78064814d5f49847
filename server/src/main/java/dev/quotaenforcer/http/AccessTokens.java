package dev.quotaenforcer.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;

/**
 * The bearer tokens the operator API accepts, read once at startup from a file of one token per
 * line, optionally {@code name:token} so that logs can say who called. Only SHA-256 digests are
 * kept, and a presented token is compared with every one of them in constant time.
 */
public final class AccessTokens {

    /** Generated tokens are far longer; a shorter one is too easy to guess. */
    static final int MIN_TOKEN_LENGTH = 16;
    static final int MAX_TOKEN_LENGTH = 512;
    private static final int MAX_FILE_BYTES = 1024 * 1024;
    /** RFC 6750's b64token: it has no ':', so the first ':' of a line always ends a name. */
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    private record Entry(String name, byte[] digest) {
    }

    private final List<Entry> entries;
    private final String source;

    private AccessTokens(List<Entry> entries, String source) {
        this.entries = List.copyOf(entries);
        this.source = source;
    }

    /**
     * Reads the token file named by {@code setting}.
     *
     * @throws ConfigException naming the setting, the file and the line, never a token, when the file
     *                         cannot be read, holds no token or a line is not a valid one
     */
    public static AccessTokens load(String setting, Path file) {
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new ConfigException(setting, file.toString(), "the file is larger than " + MAX_FILE_BYTES + " bytes");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(setting, file.toString(), "cannot be read: " + e);
        }
        try {
            return parse(new String(bytes, StandardCharsets.UTF_8), file.toString());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(setting, file.toString(), e.getMessage());
        }
    }

    /**
     * The tokens in {@code text}: blank lines and lines starting with {@code #} are skipped; a token
     * without a name is named after its line ({@code line-3}).
     *
     * @throws IllegalArgumentException saying which line is wrong and why, without its content
     */
    static AccessTokens parse(String text, String source) {
        List<Entry> entries = new ArrayList<>();
        Map<String, Integer> lineOfName = new HashMap<>();
        Map<String, Integer> lineOfToken = new HashMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int number = i + 1;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            String name = colon < 0 ? "line-" + number : line.substring(0, colon);
            String token = colon < 0 ? line : line.substring(colon + 1);
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("line " + number + ": the name before ':' must be 1 to 64 letters, "
                        + "digits, '.', '_', '@' or '-'");
            }
            if (token.length() < MIN_TOKEN_LENGTH || token.length() > MAX_TOKEN_LENGTH) {
                throw new IllegalArgumentException("line " + number + ": the token has " + token.length()
                        + " characters; it must have " + MIN_TOKEN_LENGTH + " to " + MAX_TOKEN_LENGTH
                        + " (e.g. from `openssl rand -base64 32`)");
            }
            if (!TOKEN.matcher(token).matches()) {
                throw new IllegalArgumentException("line " + number + ": the token may hold only letters, digits, "
                        + "'-', '.', '_', '~', '+', '/' and trailing '='");
            }
            Integer earlier = lineOfName.putIfAbsent(name, number);
            if (earlier != null) {
                throw new IllegalArgumentException("line " + number + ": the name " + name + " is already on line " + earlier);
            }
            earlier = lineOfToken.putIfAbsent(token, number);
            if (earlier != null) {
                throw new IllegalArgumentException("line " + number + ": the same token as on line " + earlier);
            }
            entries.add(new Entry(name, digest(token)));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("the file holds no token (one per line, optionally name:token)");
        }
        return new AccessTokens(entries, source);
    }

    /** The name of the token presented, or null when it is none of them. */
    String callerOf(String presented) {
        if (presented == null || presented.length() > MAX_TOKEN_LENGTH) {
            return null;
        }
        // Digests make every comparison the same length, and every entry is compared, so the time taken
        // tells neither how much of a token was right nor which entry matched.
        byte[] digest = digest(presented);
        String caller = null;
        for (Entry entry : entries) {
            if (MessageDigest.isEqual(digest, entry.digest())) {
                caller = entry.name();
            }
        }
        return caller;
    }

    /** Whether {@code token} has a token's form: the characters and length a token of a file can have. */
    static boolean isWellFormed(String token) {
        return token.length() >= MIN_TOKEN_LENGTH && token.length() <= MAX_TOKEN_LENGTH && TOKEN.matcher(token).matches();
    }

    int size() {
        return entries.size();
    }

    /** Where the tokens were read from, for log lines. */
    String source() {
        return source;
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}

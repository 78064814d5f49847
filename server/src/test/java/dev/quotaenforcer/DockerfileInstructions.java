package dev.quotaenforcer;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The repository's Dockerfile as its build stages and instructions, for the tests that hold the image to the code. */
final class DockerfileInstructions {

    static final Path FILE = RepositoryFiles.path("Dockerfile");

    /** One instruction: its keyword in upper case and its arguments, continuation lines joined. */
    record Instruction(String keyword, String arguments) {
    }

    /** A build stage: its base image, its name (or null) and its instructions after FROM. */
    record Stage(String image, String name, List<Instruction> instructions) {

        List<String> all(String keyword) {
            return instructions.stream().filter(i -> i.keyword().equals(keyword)).map(Instruction::arguments).toList();
        }

        /** The last instruction with this keyword, the one in force. */
        String last(String keyword) {
            List<String> all = all(keyword);
            assertFalse(all.isEmpty(), "stage " + (name == null ? image : name) + " has a " + keyword);
            return all.get(all.size() - 1);
        }

        int indexOf(Instruction instruction) {
            return instructions.indexOf(instruction);
        }
    }

    private static final Pattern FROM = Pattern.compile("(?:--\\S+\\s+)*(\\S+)(?:\\s+[Aa][Ss]\\s+(\\S+))?");
    private static final Pattern HEALTHCHECK = Pattern.compile("(?:--\\S+\\s+)*CMD\\s+(.*)", Pattern.DOTALL);

    private final List<Stage> stages;

    private DockerfileInstructions(List<Stage> stages) {
        this.stages = stages;
    }

    static DockerfileInstructions read() {
        List<String> lines;
        try {
            lines = Files.readAllLines(FILE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Stage> stages = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String line : lines) {
            String stripped = line.strip();
            // As Docker does: comment lines are dropped, even between the lines of one instruction.
            if (stripped.isEmpty() || stripped.startsWith("#")) {
                continue;
            }
            if (stripped.endsWith("\\")) {
                pending.append(stripped, 0, stripped.length() - 1).append(' ');
                continue;
            }
            pending.append(stripped);
            String[] parts = pending.toString().split("\\s+", 2);
            pending.setLength(0);
            Instruction instruction = new Instruction(parts[0].toUpperCase(Locale.ROOT), parts.length > 1 ? parts[1] : "");
            if (instruction.keyword().equals("FROM")) {
                Matcher m = FROM.matcher(instruction.arguments());
                assertTrue(m.matches(), "FROM " + instruction.arguments() + " names an image");
                stages.add(new Stage(m.group(1), m.group(2), new ArrayList<>()));
            } else {
                assertFalse(stages.isEmpty(), "the Dockerfile starts with FROM, not " + instruction.keyword());
                stages.get(stages.size() - 1).instructions().add(instruction);
            }
        }
        assertTrue(pending.isEmpty(), "the Dockerfile's last instruction is complete");
        return new DockerfileInstructions(stages);
    }

    List<Stage> stages() {
        return stages;
    }

    /** The last stage: the image that is shipped. */
    Stage runtime() {
        return stages.get(stages.size() - 1);
    }

    /** The runtime stage's ENV, in order (a later value of a name wins), in the {@code K=V} or legacy {@code K V} form. */
    Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String arguments : runtime().all("ENV")) {
            List<String> words = words(arguments);
            if (!words.get(0).contains("=")) {
                env.put(words.get(0), arguments.substring(words.get(0).length()).strip());
                continue;
            }
            for (String word : words) {
                String[] pair = word.split("=", 2);
                assertTrue(pair.length == 2, "ENV " + arguments + ": " + word + " is NAME=value");
                env.put(pair[0], pair[1]);
            }
        }
        return env;
    }

    /** ENTRYPOINT in exec form (a JSON array; the shell form would make sh, not java, PID 1). */
    List<String> entrypoint() {
        return jsonArray("ENTRYPOINT", runtime().last("ENTRYPOINT"));
    }

    List<String> cmd() {
        return jsonArray("CMD", runtime().last("CMD"));
    }

    /** The HEALTHCHECK's command, in exec form. */
    List<String> healthCheck() {
        Matcher m = HEALTHCHECK.matcher(runtime().last("HEALTHCHECK"));
        assertTrue(m.matches(), "HEALTHCHECK has a CMD: " + runtime().last("HEALTHCHECK"));
        return jsonArray("HEALTHCHECK CMD", m.group(1));
    }

    /** Words split on white space, double quotes keeping spaces and then dropped, as ENV reads them. */
    private static List<String> words(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        for (char c : text.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (Character.isWhitespace(c) && !quoted) {
                if (!word.isEmpty()) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        if (!word.isEmpty()) {
            words.add(word.toString());
        }
        assertFalse(quoted, "quotes are closed in " + text);
        return words;
    }

    static List<String> jsonArray(String what, String text) {
        try {
            return new ObjectMapper().readValue(text, new TypeReference<List<String>>() { });
        } catch (JsonProcessingException e) {
            throw new AssertionError(what + " is in exec form, a JSON array of strings: " + text, e);
        }
    }
}

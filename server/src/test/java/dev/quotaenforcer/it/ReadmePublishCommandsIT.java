package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.RepositoryFiles;
import dev.quotaenforcer.broker.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Publish a request, read its decision" commands, read from the README itself and run
 * against {@code run} on its embedded broker: kcat (when installed) and Kafka's console producer and
 * consumer (the kafka-tools classes the {@code .sh} scripts start). Only the broker's address is
 * changed, and the consumers are told when to stop.
 */
class ReadmePublishCommandsIT {

    private static final String README_ADDRESS = "localhost:9092";
    private static final Duration TOOL_WAIT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void theReadmesKcatAndConsoleClientCommandsPublishRequestsAndReadTheirDecisions() throws Exception {
        List<List<String>> kcat = shellBlockAfter("With kcat:");
        List<List<String>> console = shellBlockAfter("With Kafka's console clients:");
        assertEquals(2, kcat.size(), "kcat: one command publishes, one reads: " + kcat);
        assertEquals(2, console.size(), "console clients: one command publishes, one reads: " + console);

        int port = EmbeddedKafka.freePort();
        int controllerPort = RunCommandIT.freePortOtherThan(port);
        String bootstrap = "localhost:" + port;
        String[] run = {"-Xmx512m", "-jar", JarProcess.JAR.toString(), "run", "--data-dir", work.resolve("data").toString(),
                "--port", String.valueOf(port), "--controller-port", String.valueOf(controllerPort),
                "--set", "quota.http.port=" + RunCommandIT.freePortOtherThan(port, controllerPort)};
        try (JarProcess enforcer = JarProcess.java(work.resolve("enforcer.log"), Map.of(), run)) {
            RunCommandIT.awaitReady(enforcer, "run");
            Set<String> published = new TreeSet<>();
            Path kcatBinary = JarProcess.onPath("kcat");
            if (kcatBinary == null) {
                System.out.println("[ReadmePublishCommandsIT] kcat is not on the PATH: only the console clients' commands run");
            } else {
                Piped publish = piped(kcat.get(0), "kcat");
                runTool(kcatBinary.toString(), publish.command(), bootstrap, publish.stdin(), "kcat-publish");
                published.add(requestId(publish.stdin()));
                List<String> read = tail(kcat.get(1), "kcat");
                read.addAll(List.of("-c", String.valueOf(published.size())));
                assertDecisions(published, runTool(kcatBinary.toString(), read, bootstrap, null, "kcat-read"), " ");
            }

            Piped publish = piped(console.get(0), "kafka-console-producer.sh");
            runTool(JarProcess.JAVA, tool("org.apache.kafka.tools.ConsoleProducer", publish.command()), bootstrap,
                    publish.stdin(), "console-publish");
            published.add(requestId(publish.stdin()));
            List<String> read = tail(console.get(1), "kafka-console-consumer.sh");
            read.addAll(List.of("--max-messages", String.valueOf(published.size()), "--timeout-ms", "60000"));
            assertDecisions(published, runTool(JarProcess.JAVA, tool("org.apache.kafka.tools.consumer.ConsoleConsumer", read),
                    bootstrap, null, "console-read"), "\t");
        }
    }

    /** The requests decided, allowed, in the lines a consumer printed ({@code key<separator>json}), are those published. */
    private static void assertDecisions(Set<String> requestIds, String output, String separator) throws IOException {
        Set<String> decided = new TreeSet<>();
        for (String line : output.split("\n")) {
            int json = line.indexOf(separator + "{");
            if (json > 0 && line.startsWith("demo-")) {
                JsonNode decision = JSON.readTree(line.substring(json + separator.length()));
                assertEquals(line.substring(0, json), decision.path("apiKey").asText(), "keyed by its API key: " + line);
                assertTrue(decision.path("allowed").asBoolean(), "the sample plan allows it: " + line);
                assertEquals("OK", decision.path("reason").asText(), line);
                decided.add(decision.path("requestId").asText());
            }
        }
        assertEquals(requestIds, decided, "a decision for each request published; output:\n" + output);
    }

    private static String requestId(String line) throws IOException {
        return JSON.readTree(line.substring(line.indexOf(':') + 1)).path("requestId").asText();
    }

    private static List<String> tool(String mainClass, List<String> args) {
        List<String> command = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        return command;
    }

    private String runTool(String program, List<String> args, String bootstrap, String stdin, String name) {
        List<String> command = new ArrayList<>(List.of(program));
        command.addAll(withBootstrap(args, bootstrap));
        JarProcess.Result result = JarProcess.run(command, work.resolve(name + ".log"), Map.of(),
                stdin == null ? null : stdin + "\n", TOOL_WAIT);
        assertEquals(0, result.status(), String.join(" ", command) + " exit status; output:\n" + result.output());
        return result.output();
    }

    private static List<String> withBootstrap(List<String> args, String bootstrap) {
        List<String> replaced = new ArrayList<>();
        args.forEach(arg -> replaced.add(arg.replace(README_ADDRESS, bootstrap)));
        return replaced;
    }

    /** {@code echo 'LINE' | PROGRAM ARGS...}: the line and the arguments. */
    private static Piped piped(List<String> words, String program) {
        int pipe = words.indexOf("|");
        assertTrue(pipe == 2 && words.get(0).equals("echo") && words.get(3).equals(program),
                "echo 'key:json' | " + program + " ...: " + words);
        return new Piped(words.get(1), new ArrayList<>(words.subList(4, words.size())));
    }

    private static List<String> tail(List<String> words, String program) {
        assertEquals(program, words.get(0), "the command runs " + program + ": " + words);
        return new ArrayList<>(words.subList(1, words.size()));
    }

    private record Piped(String stdin, List<String> command) {
    }

    /** The commands of the first {@code ```sh} block after a line ending so, each split into words as a shell would. */
    private static List<List<String>> shellBlockAfter(String lead) throws IOException {
        List<String> lines = Files.readAllLines(RepositoryFiles.path("README.md"));
        int at = 0;
        while (at < lines.size() && !lines.get(at).endsWith(lead)) {
            at++;
        }
        assertTrue(at < lines.size(), "README.md has a line ending '" + lead + "'");
        int open = lines.subList(at, lines.size()).indexOf("```sh") + at;
        int close = lines.subList(open + 1, lines.size()).indexOf("```") + open + 1;
        List<List<String>> commands = new ArrayList<>();
        StringBuilder command = new StringBuilder();
        for (String line : lines.subList(open + 1, close)) {
            if (line.endsWith("\\")) {
                command.append(line, 0, line.length() - 1).append(' ');
            } else if (line.endsWith("|")) {
                command.append(line).append(' ');
            } else {
                commands.add(words(command.append(line).toString()));
                command.setLength(0);
            }
        }
        return commands;
    }

    /** Words of a command line with single quotes and a pipe, the only shell syntax the README's commands use. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        boolean inWord = false;
        for (char c : line.toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
                inWord = true;
            } else if (!quoted && Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        assertFalse(quoted, "balanced quotes: " + line);
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }
}

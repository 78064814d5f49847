package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.cli.QuotaEnforcerCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/** The packaged jar refuses a bad setting before starting anything, and every command's --help documents its options. */
class RunCommandConfigIT {

    private static final Duration QUICK = Duration.ofSeconds(30);

    @TempDir
    Path work;

    @Test
    void badSettingOnTheCommandLineExitsWithStatus2NamingSettingValueAndOriginWithoutStartingABroker() {
        assertRefusedBeforeStartingABroker(Map.of(), List.of("--set", "quota.request.max.cost=0"), "command line");
    }

    @Test
    void badSettingInTheEnvironmentExitsWithStatus2NamingTheVariableWithoutStartingABroker() {
        assertRefusedBeforeStartingABroker(Map.of("QUOTA_ENFORCER_QUOTA_REQUEST_MAX_COST", "0"), List.of(),
                "environment variable QUOTA_ENFORCER_QUOTA_REQUEST_MAX_COST");
    }

    private void assertRefusedBeforeStartingABroker(Map<String, String> env, List<String> extraArgs, String origin) {
        Path dataDir = work.resolve("data");
        int port = EmbeddedKafka.freePort();
        List<String> command = new ArrayList<>(List.of(JarProcess.JAVA, "-jar", JarProcess.JAR.toString(), "run",
                "--data-dir", dataDir.toString(), "--port", String.valueOf(port)));
        command.addAll(extraArgs);
        long started = System.nanoTime();
        JarProcess.Result result = JarProcess.run(command, work.resolve("run.log"), env, null, QUICK);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.println("RunCommandConfigIT: refused in " + millis + " ms with status " + result.status() + ": "
                + result.output().strip());

        assertEquals(2, result.status(), "exit status for a bad setting; output:\n" + result.output());
        String output = result.output();
        assertTrue(output.contains("quota.request.max.cost"), "names the setting: " + output);
        assertTrue(output.contains("Invalid value 0"), "names the value: " + output);
        assertTrue(output.contains("set by " + origin), "says where it came from (" + origin + "): " + output);
        assertFalse(output.contains("starting an embedded Kafka broker"), "starts no broker: " + output);
        assertFalse(output.contains("\tat "), "a message, not a stack trace: " + output);
        assertFalse(Files.exists(dataDir), "no broker data was written under " + dataDir);
    }

    @ParameterizedTest(name = "{0} --help")
    @ValueSource(strings = {"run", "topics apply", "plans put", "plans list", "keys assign"})
    void helpExitsZeroAndDescribesEveryOptionWithItsDefault(String command) {
        List<String> args = new ArrayList<>(List.of(JarProcess.JAVA, "-jar", JarProcess.JAR.toString()));
        args.addAll(List.of(command.split(" ")));
        args.add("--help");
        JarProcess.Result result = JarProcess.run(args, work.resolve("help.log"), Map.of(), null, QUICK);
        assertEquals(0, result.status(), command + " --help exit status; output:\n" + result.output());
        String help = result.output();
        assertTrue(help.startsWith("Usage: quota-enforcer " + command), "usage of " + command + ":\n" + help);
        String flat = help.replaceAll("\\s+", " ");

        CommandSpec spec = spec(command);
        for (OptionSpec option : spec.options()) {
            assertTrue(help.contains(option.longestName()), command + " --help lists " + option.longestName());
            String description = String.join(" ", option.description()).replace("${DEFAULT-VALUE}",
                    String.valueOf(option.defaultValue())).replaceAll("\\s+", " ").strip();
            if (!option.usageHelp() && !option.versionHelp()) {
                assertFalse(description.isEmpty(), command + ": " + option.longestName() + " has a description");
                assertTrue(flat.contains(description), command + " --help describes " + option.longestName() + ": "
                        + description);
            }
            if (option.defaultValue() != null) {
                assertTrue(flat.contains("Default: " + option.defaultValue()), command + " --help gives the default of "
                        + option.longestName() + " (" + option.defaultValue() + ")");
            }
        }
        for (PositionalParamSpec parameter : spec.positionalParameters()) {
            assertTrue(help.contains(parameter.paramLabel()), command + " --help lists " + parameter.paramLabel());
        }
        // Defaults that are not picocli defaults but the code's: where the cluster is when none is named.
        assertTrue(flat.contains(command.equals("run") ? "an embedded broker is started" : "default to localhost:9092"),
                command + " --help says which cluster it uses when none is named");
        if (command.equals("topics apply")) {
            assertTrue(flat.contains("instead of the declared one"), "--replication-factor defaults to the declared one");
        }
    }

    private static CommandSpec spec(String command) {
        CommandLine line = new CommandLine(new QuotaEnforcerCommand());
        for (String word : command.split(" ")) {
            line = line.getSubcommands().get(word);
        }
        return line.getCommandSpec();
    }
}

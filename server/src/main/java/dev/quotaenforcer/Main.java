package dev.quotaenforcer;

import dev.quotaenforcer.cli.QuotaEnforcerCommand;
import java.io.UncheckedIOException;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;

/** Entry point of {@code java -jar quota-enforcer.jar}. */
public final class Main {

    /** Exit status for a configuration or environment problem the message explains. */
    private static final int USAGE_ERROR = 2;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(execute(new QuotaEnforcerCommand(), args));
    }

    /** Runs a picocli command as the jars' entry points do: problems a user can fix get their message, not a stack trace. */
    public static int execute(Object command, String... args) {
        CommandLine commandLine = new CommandLine(command);
        String name = commandLine.getCommandName();
        return commandLine
                .setExecutionExceptionHandler((e, failed, parsed) -> {
                    if (e instanceof KafkaException || e instanceof IllegalStateException
                            || e instanceof IllegalArgumentException || e instanceof UncheckedIOException) {
                        failed.getErr().println(name + ": " + e.getMessage());
                        return USAGE_ERROR;
                    }
                    throw e;
                })
                .execute(args);
    }
}

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
        CommandLine commandLine = new CommandLine(new QuotaEnforcerCommand())
                .setExecutionExceptionHandler((e, command, parsed) -> {
                    // Problems a user can fix get their message, not a stack trace.
                    if (e instanceof KafkaException || e instanceof IllegalStateException
                            || e instanceof IllegalArgumentException || e instanceof UncheckedIOException) {
                        command.getErr().println("quota-enforcer: " + e.getMessage());
                        return USAGE_ERROR;
                    }
                    throw e;
                });
        System.exit(commandLine.execute(args));
    }
}

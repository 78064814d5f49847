package dev.quotaenforcer.cli;

import dev.quotaenforcer.config.ConfigReference;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** About the settings themselves, rather than a cluster. */
@Command(name = "config", mixinStandardHelpOptions = true, description = "Documents the enforcer's settings.",
        subcommands = ConfigCommand.Reference.class)
final class ConfigCommand {

    /** Writes the configuration reference. */
    @Command(name = "reference", mixinStandardHelpOptions = true,
            description = "Writes the configuration reference, in Markdown, as docs/configuration.md holds it: how "
                    + "settings are given, and every enforcer setting with its type, default, valid values, importance "
                    + "and meaning. Needs no cluster.")
    static final class Reference implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = "--output", paramLabel = "FILE", description = "Write it to FILE instead of standard output.")
        Path output;

        @Override
        public Integer call() {
            String reference = ConfigReference.enforcer();
            if (output == null) {
                PrintWriter out = spec.commandLine().getOut();
                out.print(reference);
                out.flush();
            } else {
                try {
                    Files.writeString(output, reference, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(output + ": cannot be written: " + e.getMessage(), e);
                }
            }
            return 0;
        }
    }
}

package dev.quotaenforcer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.config.ConfigReference;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** `config reference` writes the generated reference, to a file or to standard output. */
class ConfigCommandTest {

    @TempDir
    Path dir;

    @Test
    void configReferenceWritesTheReferenceToTheOutputFile() throws IOException {
        Path file = dir.resolve("configuration.md");
        assertEquals(0, new CommandLine(new QuotaEnforcerCommand()).execute("config", "reference", "--output", file.toString()));
        assertEquals(ConfigReference.enforcer(), Files.readString(file));
    }

    @Test
    void configReferenceWithoutOutputPrintsIt() {
        StringWriter out = new StringWriter();
        CommandLine command = new CommandLine(new QuotaEnforcerCommand());
        command.setOut(new PrintWriter(out));
        assertEquals(0, command.execute("config", "reference"));
        assertEquals(ConfigReference.enforcer(), out.toString());
    }
}

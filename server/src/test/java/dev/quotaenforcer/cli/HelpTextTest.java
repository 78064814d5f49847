package dev.quotaenforcer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The --help texts name only commands that exist, and say what the commands refuse. */
class HelpTextTest {

    private static final Pattern QUOTED = Pattern.compile("`([^`]+)`");

    @Test
    void helpTextNamesOnlyCommandsThatExist() {
        CommandLine root = new CommandLine(new QuotaEnforcerCommand());
        List<String> unknown = new ArrayList<>();
        collectUnknownCommands(root, root, unknown);
        assertEquals(List.of(), unknown, "commands named in --help that do not exist");
    }

    @Test
    void keysAssignHelpSaysThePlanMustBeInForceAndHowToPreAssignOne() {
        CommandLine assign = new CommandLine(new QuotaEnforcerCommand()).getSubcommands().get("keys")
                .getSubcommands().get("assign");
        String help = assign.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
        assertTrue(help.contains("PLAN must be in force, as `plans list` shows it"), help);
        assertTrue(help.contains("otherwise nothing is assigned and the exit status is 2"), help);
        assertTrue(help.contains("--allow-unknown-plan Assign PLAN even if it is not in force"), help);
        assertTrue(help.contains("denied with UNKNOWN_PLAN"), help);
    }

    /** Every `quoted` command path in the help of {@code command} and its subcommands must resolve from the root. */
    private static void collectUnknownCommands(CommandLine root, CommandLine command, List<String> unknown) {
        String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
        Matcher quoted = QUOTED.matcher(help);
        while (quoted.find()) {
            CommandLine target = root;
            for (String word : quoted.group(1).split(" ")) {
                target = target == null ? null : target.getSubcommands().get(word);
            }
            String mention = command.getCommandSpec().qualifiedName() + " --help: `" + quoted.group(1) + "`";
            if (target == null && !unknown.contains(mention)) {
                unknown.add(mention);
            }
        }
        command.getSubcommands().values().forEach(sub -> collectUnknownCommands(root, sub, unknown));
    }
}

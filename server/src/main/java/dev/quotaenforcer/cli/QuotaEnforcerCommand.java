package dev.quotaenforcer.cli;

import picocli.CommandLine.Command;

/** The {@code quota-enforcer} command and its subcommands. */
@Command(name = "quota-enforcer", mixinStandardHelpOptions = true, version = "quota-enforcer 0.1.0",
        description = "API quota enforcer on Kafka Streams.",
        subcommands = {RunCommand.class, DemoCommand.class, TopicsCommand.class, PlansCommand.class, KeysCommand.class,
                AclsCommand.class, ConfigCommand.class})
public final class QuotaEnforcerCommand {
}

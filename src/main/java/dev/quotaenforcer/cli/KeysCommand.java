package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.topology.Topics;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** API-key administration. */
@Command(name = "keys", mixinStandardHelpOptions = true, description = "Assigns API keys to plans.",
        subcommands = KeysCommand.Assign.class)
final class KeysCommand {

    /** Assigns a key to a plan. */
    @Command(name = "assign", mixinStandardHelpOptions = true,
            description = "Assigns API key KEY to plan PLAN (from its next request). The plan need not exist yet: until "
                    + "it does, the key's requests are denied with UNKNOWN_PLAN.")
    static final class Assign implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "KEY", description = "The API key.")
        String apiKey;

        @Parameters(index = "1", paramLabel = "PLAN", description = "The plan id.")
        String plan;

        @Override
        public Integer call() throws Exception {
            Settings settings = cluster.settingsWithDefaultCluster();
            EnforcerConfig config = settings.validate();
            new CatalogClient(settings.values(), Topics.withPrefix(config.topicPrefix()))
                    .assignKey(apiKey, plan);
            spec.commandLine().getOut().println("assigned " + apiKey + " to plan " + plan);
            return 0;
        }
    }
}

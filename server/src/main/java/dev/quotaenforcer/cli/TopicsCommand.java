package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.TopicApplier;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.runtime.TopicSetup;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Topic administration. */
@Command(name = "topics", mixinStandardHelpOptions = true, description = "Manages the topics the enforcer owns.",
        subcommands = TopicsCommand.Apply.class)
final class TopicsCommand {

    /** Creates missing topics and reports differing ones. */
    @Command(name = "apply", mixinStandardHelpOptions = true,
            description = {"Creates the topics of topics/ that are missing and reports, without changing them, existing "
                    + "ones whose partitions, replication factor or configs differ. Seeds the sample plans and keys "
                    + "when it creates the plans topic."})
    static final class Apply implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--topics-dir", paramLabel = "DIR",
                description = "Topic definitions to use instead of those in the jar (a topics/ directory).")
        Path topicsDir;

        @Option(names = "--replication-factor", paramLabel = "N",
                description = "Replication factor for every topic instead of the declared one (3 on a production cluster).")
        Short replicationFactor;

        @Override
        public Integer call() throws Exception {
            TopicDefinitions definitions = topicsDir == null ? TopicDefinitions.bundled() : TopicDefinitions.load(topicsDir);
            if (replicationFactor != null) {
                definitions = definitions.withReplicationFactor(replicationFactor);
            }
            Settings settings = cluster.settingsWithDefaultCluster();
            settings.validate();
            TopicApplier.Report report = TopicSetup.applyAndSeed(settings.values(), definitions).report();
            report.created().forEach(topic -> spec.commandLine().getOut().println("created    " + topic));
            report.unchanged().forEach(topic -> spec.commandLine().getOut().println("as defined " + topic));
            report.differences().forEach(difference -> spec.commandLine().getOut().println("DIFFERS    " + difference));
            return report.differences().isEmpty() ? 0 : 3;
        }
    }
}

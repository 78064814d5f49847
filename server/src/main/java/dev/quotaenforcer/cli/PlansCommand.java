package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import dev.quotaenforcer.plan.PlanText;
import dev.quotaenforcer.topology.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Plan administration: publish a plan, list the plans in force. */
@Command(name = "plans", mixinStandardHelpOptions = true, description = "Publishes and lists plans.",
        subcommands = {PlansCommand.Put.class, PlansCommand.ListPlans.class})
final class PlansCommand {

    /** Validates a plan file and publishes it. */
    @Command(name = "put", mixinStandardHelpOptions = true,
            description = "Validates the plan in FILE (JSON) and publishes it to the plans topic, keyed by its id. "
                    + "It applies from the next request of its keys; a policy that keeps its name and algorithm keeps its count.")
    static final class Put implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "The plan, as JSON.")
        Path file;

        @Override
        public Integer call() throws Exception {
            Settings settings = cluster.settingsWithDefaultCluster();
            EnforcerConfig config = settings.validate();
            CatalogClient catalog = new CatalogClient(settings.values(),
                    Topics.withPrefix(config.topicPrefix()));
            try {
                Plan plan = catalog.putPlan(Files.readAllBytes(file));
                spec.commandLine().getOut().println("published plan " + plan.id() + ": " + describe(plan));
                return 0;
            } catch (InvalidPlanException e) {
                spec.commandLine().getErr().println(file + ": " + e.getMessage());
                return 2;
            }
        }
    }

    /** Lists the validated plans in the catalog. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists the plans in force: those the enforcer validated into its plan catalog.")
    static final class ListPlans implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            Settings settings = cluster.settingsWithDefaultCluster();
            EnforcerConfig config = settings.validate();
            CatalogClient catalog = new CatalogClient(settings.values(),
                    Topics.withPrefix(config.topicPrefix()));
            Map<String, Plan> plans = catalog.listPlans();
            plans.values().forEach(plan -> spec.commandLine().getOut().println(plan.id() + "\t" + describe(plan)));
            if (plans.isEmpty()) {
                spec.commandLine().getOut().println("no plans in " + Topics.withPrefix(config.topicPrefix()).planCatalog().name());
            }
            return 0;
        }
    }

    static String describe(Plan plan) {
        StringJoiner policies = new StringJoiner("; ");
        for (PlanPolicy policy : plan.policies()) {
            LimitPolicy limit = policy.limit();
            String parameters = limit.algorithm().windowed()
                    ? PlanText.window(limit.limit(), limit.windowMs())
                    : "capacity " + limit.limit() + ", " + PlanText.rate(limit.refill());
            policies.add(policy.kind().name().toLowerCase(Locale.ROOT) + " " + limit.name() + " ("
                    + limit.algorithm().id() + ", " + parameters + ")");
        }
        return policies.toString();
    }
}

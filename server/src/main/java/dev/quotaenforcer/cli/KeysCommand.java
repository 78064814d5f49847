package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.KeyCommandClient;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.topology.Topics;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** API-key administration. */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = "Assigns API keys to plans; resets, grants, blocks and unblocks keys.",
        subcommands = {KeysCommand.Assign.class, KeysCommand.Reset.class, KeysCommand.Grant.class, KeysCommand.Block.class,
                KeysCommand.Unblock.class})
final class KeysCommand {

    /** What every key subcommand takes: the cluster and the API key, first of its parameters. */
    abstract static class KeySubcommand implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "KEY", description = "The API key.")
        String apiKey;

        /** Does the subcommand's work with the validated settings and the topics they name; returns the exit status. */
        abstract int run(Settings settings, Topics topics) throws InterruptedException;

        @Override
        public Integer call() throws Exception {
            Settings settings = cluster.settingsWithDefaultCluster();
            EnforcerConfig config = settings.validate();
            return run(settings, Topics.withPrefix(config.topicPrefix()));
        }
    }

    /** Assigns a key to a plan, refusing one that is not in force unless told to pre-assign it. */
    @Command(name = "assign", mixinStandardHelpOptions = true,
            description = "Assigns API key KEY to plan PLAN (from its next request). PLAN must be in force, as `plans list` "
                    + "shows it (a plan just published is in force once the enforcer has validated it); otherwise "
                    + "nothing is assigned and the exit status is 2.")
    static final class Assign extends KeySubcommand {

        @Parameters(index = "1", paramLabel = "PLAN", description = "The plan id.")
        String plan;

        @Option(names = "--allow-unknown-plan", description = "Assign PLAN even if it is not in force, to pre-assign a "
                + "key: until the plan exists, its requests are denied with UNKNOWN_PLAN.")
        boolean allowUnknownPlan;

        @Override
        int run(Settings settings, Topics topics) throws InterruptedException {
            CatalogClient catalog = new CatalogClient(settings.values(), topics);
            if (!allowUnknownPlan) {
                Optional<String> refusal = refusal(plan, catalog.listPlans().keySet());
                if (refusal.isPresent()) {
                    spec.commandLine().getErr().println("quota-enforcer: " + refusal.get());
                    return 2;
                }
            }
            catalog.assignKey(apiKey, plan);
            spec.commandLine().getOut().println("assigned " + apiKey + " to plan " + plan);
            return 0;
        }

        /** Why {@code plan} may not be assigned when {@code inForce} are the plans in force; empty when it may. */
        static Optional<String> refusal(String plan, Collection<String> inForce) {
            if (inForce.contains(plan)) {
                return Optional.empty();
            }
            String plans = inForce.isEmpty() ? "none" : String.join(", ", new TreeSet<>(inForce));
            return Optional.of("plan \"" + plan + "\" is not in force; plans in force: " + plans + ". Use "
                    + "--allow-unknown-plan to assign it anyway (its requests are denied until the plan exists).");
        }
    }

    /**
     * What the admin commands share: the cluster, the key, the audit fields, and publishing on the
     * commands topic, where the enforcer applies the command between two of the key's requests.
     */
    abstract static class AdminCommand extends KeySubcommand {

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the audit log (the commands topic).")
        String reason;

        @Option(names = "--issuer", paramLabel = "NAME", description = "Who issues it, for the audit log. Default: the "
                + "user name of this process.")
        String issuer = System.getProperty("user.name");

        /** The command to publish, from the options; throws IllegalArgumentException naming a bad value. */
        abstract KeyCommand command();

        /** What the command does, for the confirmation line. */
        abstract String done();

        @Override
        int run(Settings settings, Topics topics) throws InterruptedException {
            String commandId = UUID.randomUUID().toString();
            try {
                new KeyCommandClient(settings.values(), topics).send(command().audited(commandId, issuer, reason));
            } catch (IllegalArgumentException e) {
                spec.commandLine().getErr().println("quota-enforcer: " + e.getMessage());
                return 2;
            }
            spec.commandLine().getOut().println(done() + " (command " + commandId + " on " + topics.commands().name() + ")");
            return 0;
        }
    }

    /** Resets a key's counts. */
    @Command(name = "reset", mixinStandardHelpOptions = true,
            description = "Clears what KEY has used of policy NAME, or of every policy: from the enforcer's next request "
                    + "of the key it counts afresh, and a run of denials (and its block) ends. Grants and blocks stay.")
    static final class Reset extends AdminCommand {

        @Option(names = "--policy", paramLabel = "NAME", description = "The policy, by name. Default: every policy.")
        String policy;

        @Override
        KeyCommand command() {
            return KeyCommand.reset(apiKey, policy);
        }

        @Override
        String done() {
            return "reset " + (policy == null ? "every policy" : "policy " + policy) + " of " + apiKey;
        }
    }

    /** Grants a key extra allowance. */
    @Command(name = "grant", mixinStandardHelpOptions = true,
            description = "Lets KEY use N more of policy NAME until the policy's current window ends (the calendar hour of "
                    + "an hourly quota; for a bucket, the time it takes to refill). A token bucket gets the N tokens at once.")
    static final class Grant extends AdminCommand {

        @Option(names = "--policy", required = true, paramLabel = "NAME", description = "The policy, by name.")
        String policy;

        @Option(names = "--amount", required = true, paramLabel = "N", description = "How much more, e.g. 500 requests.")
        long amount;

        @Override
        KeyCommand command() {
            return KeyCommand.grant(apiKey, policy, amount);
        }

        @Override
        String done() {
            return "granted " + apiKey + " " + amount + " more of policy " + policy;
        }
    }

    /** Blocks a key. */
    @Command(name = "block", mixinStandardHelpOptions = true,
            description = "Denies every request of KEY (reason BLOCKED, counting nothing) until --until, for --for, or, "
                    + "with neither, until `keys unblock`. A later block replaces this one.")
    static final class Block extends AdminCommand {

        @Option(names = "--until", paramLabel = "ISO-8601", description = "When the block ends, e.g. 2026-12-01T00:00:00Z.")
        String until;

        @Option(names = "--for", paramLabel = "DURATION", description = "How long it lasts from now, e.g. PT2H or P1D.")
        String duration;

        /** When the published block ends; null for none. */
        private Instant end;

        @Override
        KeyCommand command() {
            end = end(Instant.now());
            return KeyCommand.block(apiKey, end);
        }

        private Instant end(Instant now) {
            if (until != null && duration != null) {
                throw new IllegalArgumentException("--until and --for: give one of them, not both");
            }
            Instant end;
            if (until != null) {
                try {
                    end = OffsetDateTime.parse(until).toInstant();
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException("--until: " + until + " is not an ISO-8601 date-time with offset, "
                            + "e.g. 2026-12-01T00:00:00Z", e);
                }
            } else if (duration != null) {
                Duration length;
                try {
                    length = Duration.parse(duration);
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException("--for: " + duration + " is not an ISO-8601 duration, e.g. PT2H", e);
                }
                if (length.isNegative() || length.isZero()) {
                    throw new IllegalArgumentException("--for: " + duration + " must be positive");
                }
                end = now.plus(length);
            } else {
                return null;
            }
            if (!end.isAfter(now)) {
                throw new IllegalArgumentException("--until: " + until + " is not in the future");
            }
            return end;
        }

        @Override
        String done() {
            return "blocked " + apiKey + " until " + (end == null ? "unblocked" : end);
        }
    }

    /** Lifts a block. */
    @Command(name = "unblock", mixinStandardHelpOptions = true,
            description = "Lifts the block of KEY. Limits the key has used up keep denying until they allow again.")
    static final class Unblock extends AdminCommand {

        @Override
        KeyCommand command() {
            return KeyCommand.unblock(apiKey);
        }

        @Override
        String done() {
            return "unblocked " + apiKey;
        }
    }
}

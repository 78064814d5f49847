package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.AclMatrix;
import dev.quotaenforcer.admin.ClientSettings;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The ACLs of the enforcer, gateways and operators on a cluster with an authorizer: printed or created. */
@Command(name = "acls", mixinStandardHelpOptions = true,
        description = "Prints or creates the ACLs the enforcer, a gateway and an operator need on a cluster with an "
                + "authorizer, and nothing more, for the topics of quota.topic.prefix and the enforcer's application.id "
                + "(from the settings).",
        subcommands = {AclsCommand.Print.class, AclsCommand.Create.class})
final class AclsCommand {

    /** TYPE:NAME, with no wildcard name: a principal of the matrix is one identity, never everyone. */
    private static final Pattern PRINCIPAL = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*:[^\\s*][^\\s]*");

    /** What both subcommands take: the principals, and the settings that name the topics and the application. */
    abstract static class MatrixCommand implements Callable<Integer> {

        @Mixin
        ClusterOptions cluster;

        @Spec
        CommandSpec spec;

        @Option(names = "--enforcer", paramLabel = "PRINCIPAL", description = "The enforcer's principal, e.g. User:quota-enforcer.")
        String enforcer;

        @Option(names = "--gateway", paramLabel = "PRINCIPAL", description = "A gateway's principal, e.g. User:gateway.")
        String gateway;

        @Option(names = "--operator", paramLabel = "PRINCIPAL", description = "An operator's principal, e.g. User:ops.")
        String operator;

        /** The principals named, by role, each checked. */
        Map<AclMatrix.Role, String> principals() {
            Map<AclMatrix.Role, String> principals = new EnumMap<>(AclMatrix.Role.class);
            put(principals, AclMatrix.Role.ENFORCER, enforcer);
            put(principals, AclMatrix.Role.GATEWAY, gateway);
            put(principals, AclMatrix.Role.OPERATOR, operator);
            if (principals.isEmpty()) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "name at least one principal: --enforcer, --gateway or --operator");
            }
            return principals;
        }

        private void put(Map<AclMatrix.Role, String> principals, AclMatrix.Role role, String principal) {
            if (principal == null) {
                return;
            }
            if (!PRINCIPAL.matcher(principal).matches()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--" + role.label() + " " + principal
                        + ": not a principal; write TYPE:NAME with no spaces and no wildcard, e.g. User:" + role.label());
            }
            principals.put(role, principal);
        }

        static AclMatrix matrix(EnforcerConfig config) {
            return AclMatrix.of(config.topicPrefix(),
                    String.valueOf(config.streamsProperties().get(StreamsConfig.APPLICATION_ID_CONFIG)));
        }

        /** Every binding of the named roles, in the matrix's order. */
        static List<AclBinding> bindings(AclMatrix matrix, Map<AclMatrix.Role, String> principals) {
            List<AclBinding> bindings = new ArrayList<>();
            principals.forEach((role, principal) -> matrix.entries(role).forEach(entry -> bindings.add(entry.binding(principal))));
            return bindings;
        }
    }

    /** How {@code acls print} writes the matrix. */
    enum Format {
        /** One ACL a line: principal, operation, resource type, pattern type, name. */
        TABLE,
        /** A Markdown table, a row per principal and resource, as in docs/production.md. */
        MARKDOWN,
        /** One kafka-acls.sh command per ACL. */
        KAFKA_ACLS
    }

    /** Prints the ACLs. */
    @Command(name = "print", mixinStandardHelpOptions = true,
            description = "Prints the ACLs of the principals named, changing nothing. Needs no cluster.")
    static final class Print extends MatrixCommand {

        @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "TABLE",
                description = "TABLE (one ACL a line), MARKDOWN (a row per principal and resource) or KAFKA_ACLS (a "
                        + "kafka-acls.sh command per ACL). Default: ${DEFAULT-VALUE}.")
        Format format;

        @Override
        public Integer call() {
            Map<AclMatrix.Role, String> principals = principals();
            Settings settings = cluster.settingsWithDefaultCluster();
            AclMatrix matrix = matrix(settings.validate());
            PrintWriter out = spec.commandLine().getOut();
            switch (format) {
                case MARKDOWN -> out.print(matrix.markdown(principals));
                case KAFKA_ACLS -> principals.forEach((role, principal) -> matrix.entries(role).forEach(entry -> out.println(
                        entry.kafkaAclsCommand(principal, String.valueOf(settings.values().get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG))))));
                case TABLE -> principals.forEach((role, principal) -> matrix.entries(role).forEach(entry -> out.printf(
                        "%-24s %-16s %-16s %-8s %s%n", principal, entry.operation(), entry.type(), entry.pattern(), entry.name())));
            }
            out.flush();
            return 0;
        }
    }

    /** Creates the ACLs. */
    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Creates the ACLs of the principals named on the cluster (as a principal allowed to alter "
                    + "the cluster's ACLs); ACLs that exist already are left as they are.")
    static final class Create extends MatrixCommand {

        @Override
        public Integer call() throws InterruptedException {
            Map<AclMatrix.Role, String> principals = principals();
            Settings settings = cluster.settingsWithDefaultCluster();
            List<AclBinding> bindings = bindings(matrix(settings.validate()), principals);
            try (Admin admin = Admin.create(ClientSettings.forAdmin(settings.values()))) {
                admin.createAcls(bindings).all().get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("cannot create the ACLs on "
                        + settings.values().get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) + ": " + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("timed out creating the ACLs on "
                        + settings.values().get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG), e);
            }
            PrintWriter out = spec.commandLine().getOut();
            bindings.forEach(binding -> out.println("allowed " + binding.entry().principal() + " "
                    + binding.entry().operation() + " on " + binding.pattern().resourceType() + " "
                    + binding.pattern().patternType() + " " + binding.pattern().name()));
            out.flush();
            return 0;
        }
    }
}

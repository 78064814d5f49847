package dev.quotaenforcer.admin;

import dev.quotaenforcer.topology.Topics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACLs each of the three principals needs on a cluster with an authorizer, and nothing more: the
 * one list the {@code acls} command prints and creates, the enforcer checks at startup and the
 * table in docs/production.md is compared with.
 *
 * <p>The enforcer reads its inputs and catalogs, writes its outputs, describes the configs of the
 * topics it checks at startup, and runs Kafka Streams under exactly-once: its group and transactional
 * ids and its internal topics are named after its {@code application.id}. A gateway writes requests
 * and reads replies and blocks; it uses no consumer group (its clients assign partitions). An operator
 * writes commands, plans and key assignments, and reads the plan catalog ({@code plans list}, and
 * {@code keys assign} to refuse a plan not in force).
 * Creating the topics ({@code topics apply}) and ACLs is a cluster administrator's job, in no role here.
 */
public final class AclMatrix {

    /** Who the ACL is for. */
    public enum Role {
        ENFORCER, GATEWAY, OPERATOR;

        /** The role's name as the command line and docs/production.md write it. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One permission a role needs: an operation on a resource pattern, and what for. */
    public record Entry(Role role, ResourceType type, PatternType pattern, String name, AclOperation operation,
                        String purpose) {

        /** The ALLOW binding of this permission for {@code principal}, from any host. */
        public AclBinding binding(String principal) {
            return new AclBinding(new ResourcePattern(type, name, pattern),
                    new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
        }

        /** E.g. {@code WRITE on topic quota.decisions}, or {@code CREATE on topics prefixed quota-enforcer}. */
        public String describe() {
            String resource = type.name().toLowerCase(Locale.ROOT).replace('_', ' ');
            return operation + " on " + (pattern == PatternType.PREFIXED ? resource + "s prefixed " : resource + " ") + name;
        }

        /** The {@code kafka-acls.sh} command that grants it to {@code principal}. */
        public String kafkaAclsCommand(String principal, String bootstrapServers) {
            StringBuilder command = new StringBuilder("kafka-acls.sh --bootstrap-server ").append(bootstrapServers)
                    .append(" --add --allow-principal ").append(principal).append(" --operation ").append(camelCase(operation));
            switch (type) {
                case TOPIC -> command.append(" --topic ").append(name);
                case GROUP -> command.append(" --group ").append(name);
                case TRANSACTIONAL_ID -> command.append(" --transactional-id ").append(name);
                default -> throw new IllegalStateException("no kafka-acls.sh option for resource type " + type);
            }
            if (pattern == PatternType.PREFIXED) {
                command.append(" --resource-pattern-type prefixed");
            }
            return command.toString();
        }
    }

    private final List<Entry> entries;

    private AclMatrix(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** The matrix for topics named from {@code topicPrefix} and an enforcer running as {@code applicationId}. */
    public static AclMatrix of(String topicPrefix, String applicationId) {
        Topics topics = Topics.withPrefix(topicPrefix);
        Builder acls = new Builder();
        acls.topic(Role.ENFORCER, topics.requests().name(), "input", AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        acls.topic(Role.ENFORCER, topics.commands().name(), "input", AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        acls.topic(Role.ENFORCER, topics.plans().name(), "input", AclOperation.READ);
        acls.topic(Role.ENFORCER, topics.apiKeys().name(), "input", AclOperation.READ);
        acls.topic(Role.ENFORCER, topics.planCatalog().name(), "catalogs, read back",
                AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        acls.topic(Role.ENFORCER, topics.keyCatalog().name(), "catalogs, read back",
                AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        for (String output : List.of(topics.decisions().name(), topics.usage().name(), topics.blocks().name(),
                topics.planUsage().name(), topics.deadLetter().name())) {
            acls.topic(Role.ENFORCER, output, "output", AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        }
        acls.topic(Role.ENFORCER, topics.exceeded().name(), "output, the dashboard's feed",
                AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        // The reply topics are <prefix>.replies and those under <prefix>.replies. (not <prefix>.repliesX): two ACLs.
        acls.topic(Role.ENFORCER, topics.replies().name(), "replies",
                AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        acls.add(Role.ENFORCER, ResourceType.TOPIC, PatternType.PREFIXED, topics.replies().name() + ".", "replies",
                AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        // DELETE: Kafka Streams purges what it has consumed of its repartition topics, which are kept forever otherwise.
        acls.add(Role.ENFORCER, ResourceType.TOPIC, PatternType.PREFIXED, applicationId,
                "Kafka Streams' internal topics (Delete: purging repartition topics)",
                AclOperation.CREATE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE);
        acls.add(Role.ENFORCER, ResourceType.GROUP, PatternType.LITERAL, applicationId, "Kafka Streams' consumer group",
                AclOperation.READ);
        acls.add(Role.ENFORCER, ResourceType.TRANSACTIONAL_ID, PatternType.PREFIXED, applicationId,
                "exactly-once transactions", AclOperation.WRITE);

        acls.topic(Role.GATEWAY, topics.requests().name(), "requests", AclOperation.WRITE);
        acls.topic(Role.GATEWAY, topics.replies().name(), "its decisions (QuotaClient)", AclOperation.READ);
        acls.add(Role.GATEWAY, ResourceType.TOPIC, PatternType.PREFIXED, topics.replies().name() + ".",
                "its decisions (QuotaClient)", AclOperation.READ);
        acls.topic(Role.GATEWAY, topics.blocks().name(), "blocks (AsyncQuotaClient)", AclOperation.READ);

        acls.topic(Role.OPERATOR, topics.commands().name(), "keys reset/grant/block/unblock", AclOperation.WRITE);
        acls.topic(Role.OPERATOR, topics.plans().name(), "plans put", AclOperation.WRITE);
        acls.topic(Role.OPERATOR, topics.apiKeys().name(), "keys assign", AclOperation.WRITE);
        acls.topic(Role.OPERATOR, topics.planCatalog().name(), "plans list; keys assign", AclOperation.READ);
        return new AclMatrix(acls.entries);
    }

    /** The role's entries, in the order docs/production.md lists them. */
    public List<Entry> entries(Role role) {
        return entries.stream().filter(entry -> entry.role() == role).toList();
    }

    /**
     * The entries of the roles in {@code principals} as a Markdown table: what docs/production.md shows for the
     * default names. A row per principal, resource type and set of operations, so resources that need
     * the same share one; prefixed names end in {@code *}.
     */
    public String markdown(Map<Role, String> principals) {
        Map<String, List<Entry>> byResource = new LinkedHashMap<>();
        for (Entry entry : entries) {
            if (principals.containsKey(entry.role())) {
                byResource.computeIfAbsent(entry.role() + "|" + entry.type() + "|" + entry.pattern() + "|" + entry.name(),
                        key -> new ArrayList<>()).add(entry);
            }
        }
        Map<String, List<List<Entry>>> rows = new LinkedHashMap<>();
        for (List<Entry> resource : byResource.values()) {
            Entry first = resource.get(0);
            rows.computeIfAbsent(first.role() + "|" + first.type() + "|" + operations(resource), key -> new ArrayList<>())
                    .add(resource);
        }
        StringBuilder table = new StringBuilder("| Principal | Resource | Names | Operations | For |\n|---|---|---|---|---|\n");
        for (List<List<Entry>> row : rows.values()) {
            Entry first = row.get(0).get(0);
            StringJoiner names = new StringJoiner(", ");
            Set<String> purposes = new LinkedHashSet<>();
            for (List<Entry> resource : row) {
                Entry entry = resource.get(0);
                names.add("`" + entry.name() + (entry.pattern() == PatternType.PREFIXED ? "*" : "") + "`");
                purposes.add(entry.purpose());
            }
            table.append("| ").append(principals.get(first.role()))
                    .append(" | ").append(first.type().name().toLowerCase(Locale.ROOT).replace('_', ' '))
                    .append(" | ").append(names)
                    .append(" | ").append(operations(row.get(0)))
                    .append(" | ").append(String.join("; ", purposes)).append(" |\n");
        }
        return table.toString();
    }

    private static String operations(List<Entry> resource) {
        StringJoiner operations = new StringJoiner(", ");
        resource.forEach(entry -> operations.add(camelCase(entry.operation())));
        return operations.toString();
    }

    /** {@code DESCRIBE_CONFIGS} as Kafka's tools write it: {@code DescribeConfigs}. */
    static String camelCase(AclOperation operation) {
        StringBuilder name = new StringBuilder();
        for (String word : operation.name().split("_")) {
            name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
        }
        return name.toString();
    }

    /** Collects entries, one per operation. */
    private static final class Builder {
        private final List<Entry> entries = new ArrayList<>();

        void topic(Role role, String topic, String purpose, AclOperation... operations) {
            add(role, ResourceType.TOPIC, PatternType.LITERAL, topic, purpose, operations);
        }

        void add(Role role, ResourceType type, PatternType pattern, String name, String purpose, AclOperation... operations) {
            for (AclOperation operation : operations) {
                entries.add(new Entry(role, type, pattern, name, operation, purpose));
            }
        }
    }
}

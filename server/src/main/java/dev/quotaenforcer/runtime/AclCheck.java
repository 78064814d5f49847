package dev.quotaenforcer.runtime;

import dev.quotaenforcer.admin.AclMatrix;
import dev.quotaenforcer.admin.ClientSettings;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.topology.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at startup that the enforcer's principal holds every permission of {@link AclMatrix}'s
 * enforcer role, so that a missing ACL stops the start with its name and the command that grants it,
 * rather than failing Kafka Streams later with a generic authorization error.
 *
 * <p>The broker answers for the principal itself, whatever grants it (literal, prefixed or wildcard
 * ACLs, super users, no authorizer at all): topics and the group by their authorized operations, the
 * right to create internal topics by a validate-only creation, the right to describe a topic's configs
 * by describing them where the topic cannot be described, the transactional ids by initializing a
 * transactional producer with an id under their prefix. A prefixed topic ACL is checked on every
 * topic under its prefix the principal can see. What does not exist yet (internal topics, reply
 * topics under the prefix, the group before Kafka Streams first joins it) can only be found lacking
 * every ACL that allows describing it, or CREATE or DESCRIBE_CONFIGS: its other operations are checked
 * once it exists.
 */
final class AclCheck {

    private static final Logger LOG = LoggerFactory.getLogger(AclCheck.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern JAAS_USERNAME = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");

    private final Admin admin;
    private final Map<String, Object> settings;
    private final String applicationId;
    private final String internalTopic;

    private AclCheck(Admin admin, Map<String, Object> settings, EnforcerConfig config) {
        this.admin = admin;
        this.settings = settings;
        this.applicationId = String.valueOf(config.streamsProperties().get(StreamsConfig.APPLICATION_ID_CONFIG));
        // The name Kafka Streams gives the re-keyed requests' repartition topic.
        this.internalTopic = applicationId + "-" + Topics.REKEYED_REQUESTS + "-repartition";
    }

    /**
     * Checks that the principal of {@code settings} holds every ACL the enforcer needs on the cluster.
     *
     * @throws IllegalStateException naming every enforcer ACL the principal lacks, with the commands that
     *                               grant them, or saying what could not be checked
     */
    static void require(Admin admin, Map<String, Object> settings) throws InterruptedException {
        EnforcerConfig config = new EnforcerConfig(settings);
        AclCheck check = new AclCheck(admin, settings, config);
        AclMatrix matrix = AclMatrix.of(config.topicPrefix(), check.applicationId);
        List<AclMatrix.Entry> missing;
        try {
            missing = check.missing(matrix.entries(AclMatrix.Role.ENFORCER), config);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot check the enforcer's ACLs at "
                    + settings.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out checking the enforcer's ACLs at "
                    + settings.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG), e);
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException(message(missing, principal(settings),
                    String.valueOf(settings.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG))));
        }
    }

    private List<AclMatrix.Entry> missing(List<AclMatrix.Entry> required, EnforcerConfig config)
            throws ExecutionException, InterruptedException, TimeoutException {
        Set<String> existing = admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<String, List<AclMatrix.Entry>> byTopic = new LinkedHashMap<>();
        List<AclMatrix.Entry> group = new ArrayList<>();
        List<AclMatrix.Entry> transactional = new ArrayList<>();
        for (AclMatrix.Entry entry : required) {
            switch (entry.type()) {
                case TOPIC -> checkedTopics(entry, existing)
                        .forEach(topic -> byTopic.computeIfAbsent(topic, name -> new ArrayList<>()).add(entry));
                case GROUP -> group.add(entry);
                case TRANSACTIONAL_ID -> transactional.add(entry);
                default -> throw new IllegalStateException("no check for ACLs on " + entry.type());
            }
        }
        // One missing ACL checked on several topics is reported once.
        Set<AclMatrix.Entry> missing = new LinkedHashSet<>(missingOnTopics(byTopic));
        missing.addAll(missingOnGroup(group));
        if (!transactional.isEmpty() && exactlyOnce(config)) {
            missing.addAll(missingTransactional(transactional));
        }
        return List.copyOf(missing);
    }

    /**
     * The topics an ACL is checked on: a literal one's topic; for a prefixed one, every topic the
     * principal sees under the prefix, or with none yet, one name under it (for the application's
     * prefix, the repartition topic Kafka Streams creates first).
     */
    private List<String> checkedTopics(AclMatrix.Entry entry, Set<String> existing) {
        if (entry.pattern() != PatternType.PREFIXED) {
            return List.of(entry.name());
        }
        boolean internal = entry.name().equals(applicationId);
        String prefix = internal ? applicationId + "-" : entry.name();
        List<String> under = existing.stream().filter(topic -> topic.startsWith(prefix)).sorted().toList();
        return !under.isEmpty() ? under : List.of(internal ? internalTopic : entry.name());
    }

    private List<AclMatrix.Entry> missingOnTopics(Map<String, List<AclMatrix.Entry>> byTopic)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(byTopic.keySet(),
                new DescribeTopicsOptions().includeAuthorizedOperations(true)).topicNameValues();
        List<AclMatrix.Entry> missing = new ArrayList<>();
        for (Map.Entry<String, List<AclMatrix.Entry>> topic : byTopic.entrySet()) {
            try {
                Set<AclOperation> authorized = described.get(topic.getKey()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .authorizedOperations();
                if (authorized == null) {
                    LOG.debug("The cluster does not report authorized operations on {}: not checked", topic.getKey());
                    continue;
                }
                topic.getValue().stream().filter(entry -> !authorized.contains(entry.operation())).forEach(missing::add);
            } catch (ExecutionException e) {
                boolean describable = e.getCause() instanceof UnknownTopicOrPartitionException;
                if (!describable && !(e.getCause() instanceof TopicAuthorizationException)) {
                    throw e;
                }
                // Absent, or not to be described: asked one by one where a request can ask. Missing topics of the
                // enforcer's own are reported by the checks after this one.
                for (AclMatrix.Entry entry : topic.getValue()) {
                    boolean held = switch (entry.operation()) {
                        case CREATE -> mayCreate(topic.getKey());
                        case DESCRIBE_CONFIGS -> mayDescribeConfigs(topic.getKey());
                        // READ, WRITE and DELETE each allow DESCRIBE: undescribable, the topic allows none of them.
                        default -> describable;
                    };
                    if (!held) {
                        missing.add(entry);
                    }
                }
            }
        }
        return missing;
    }

    /** Whether the principal may create the topic, by asking the broker to validate its creation. */
    private boolean mayCreate(String topic) throws ExecutionException, InterruptedException, TimeoutException {
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty())),
                    new CreateTopicsOptions().validateOnly(true)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                return false;
            }
            if (e.getCause() instanceof TopicExistsException) {
                return true;
            }
            throw e;
        }
    }

    /** Whether the principal may describe the topic's configs: the broker checks that before whether it exists. */
    private boolean mayDescribeConfigs(String topic) throws ExecutionException, InterruptedException, TimeoutException {
        try {
            admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic))).all()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException) {
                return false;
            }
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return true;
            }
            throw e;
        }
    }

    private List<AclMatrix.Entry> missingOnGroup(List<AclMatrix.Entry> required)
            throws ExecutionException, InterruptedException, TimeoutException {
        if (required.isEmpty()) {
            return List.of();
        }
        Set<AclOperation> authorized;
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(applicationId),
                    new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true)).describedGroups().get(applicationId)
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (group.authorizedOperations() == null) {
                LOG.debug("The cluster does not report authorized operations on group {}: not checked", applicationId);
                return List.of();
            }
            authorized = group.authorizedOperations();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                // Absent but describable: before Kafka Streams first joins it, only an ACL that allows nothing on it shows.
                return List.of();
            }
            if (!(e.getCause() instanceof GroupAuthorizationException)) {
                throw e;
            }
            authorized = Set.of();
        }
        Set<AclOperation> held = authorized;
        return required.stream().filter(entry -> !held.contains(entry.operation())).toList();
    }

    /**
     * Initializes a transactional producer whose id is under the application's prefix (but none Kafka
     * Streams uses): the one request that proves the right to the ids Kafka Streams will take. It leaves
     * the id's producer state, idle, for the coordinator to expire.
     */
    private List<AclMatrix.Entry> missingTransactional(List<AclMatrix.Entry> required) {
        Map<String, Object> producerSettings = new HashMap<>(ClientSettings.forProducer(settings));
        producerSettings.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, applicationId + "-acl-check");
        producerSettings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
        producerSettings.remove(ProducerConfig.CLIENT_ID_CONFIG);
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(producerSettings, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            return List.of();
        } catch (TransactionalIdAuthorizationException e) {
            return required;
        } catch (org.apache.kafka.common.errors.TimeoutException | org.apache.kafka.common.errors.ProducerFencedException
                 | org.apache.kafka.common.errors.InvalidProducerEpochException e) {
            // Not an answer about permissions: Kafka Streams will wait for the coordinator itself, and an instance
            // starting at the same moment may fence this check's producer, which shares its id.
            LOG.warn("Could not check the enforcer's transactional id ACL (prefix {}): {}", applicationId, e.getMessage());
            return List.of();
        }
    }

    private static boolean exactlyOnce(EnforcerConfig config) {
        return !StreamsConfig.AT_LEAST_ONCE.equals(config.streamsProperties().get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
    }

    /** The principal as far as the settings tell it: a SASL user's name, else a placeholder to fill in. */
    static String principal(Map<String, Object> settings) {
        Object jaas = settings.get(SaslConfigs.SASL_JAAS_CONFIG);
        if (jaas != null) {
            // Only the user name is read out of the JAAS config, never the rest of it.
            Matcher username = JAAS_USERNAME.matcher(jaas instanceof Password password ? password.value()
                    : String.valueOf(jaas));
            if (username.find() && !username.group(1).isBlank()) {
                return "User:" + username.group(1);
            }
        }
        return "User:<enforcer>";
    }

    static String message(List<AclMatrix.Entry> missing, String principal, String bootstrapServers) {
        StringBuilder message = new StringBuilder("the enforcer's principal ").append(principal).append(" lacks ")
                .append(missing.size() == 1 ? "an ACL" : missing.size() + " ACLs").append(" it needs; grant ")
                .append(missing.size() == 1 ? "it" : "them").append(" as a cluster administrator:");
        for (AclMatrix.Entry entry : missing) {
            message.append("\n  ").append(entry.describe()).append(" (").append(entry.purpose()).append("): ")
                    .append(entry.kafkaAclsCommand(principal, bootstrapServers));
        }
        return message.append("\nor grant all of the enforcer's with: quota-enforcer acls create --enforcer ").append(principal)
                .append(" --bootstrap-servers ").append(bootstrapServers).toString();
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.CommandParser;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.event.RequestParser;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;

/**
 * Builds the enforcer's Kafka Streams topology from its configuration.
 *
 * <pre>
 * requests ─ intake ─┬─ on the key's partition ──────────────────┬─ quota-decider ─┬─ decisions (+ reply topic)
 *                    ├─ elsewhere ─ requests-rekeyed (repartition)┤                 ├─ exceeded, blocks
 *                    ├─ unreadable ─ dead-letter                  │                 ├─ late requests, commands not
 *                    └─ INVALID_REQUEST decision when answerable: │                 │  applicable: dead-letter
 *                       decisions (+ reply topic)                 │                 └─ per usage interval: usage; plan shares
 *                                                                 │                    (repartition) ─ plan-usage-totals ─ plan-usage
 * commands ─ intake ─┬─ on the key's partition ──────────────────┤
 *                    ├─ elsewhere ─ commands-rekeyed (repartition)┘
 *                    └─ unreadable ─ dead-letter
 * plans ─ validator ─ plan-catalog (global table)     api-keys ─ validator ─ key-catalog (global table)
 * </pre>
 */
public final class QuotaTopology {

    /** Global store of validated plans, by plan id. */
    public static final String PLAN_CATALOG_STORE = "plan-catalog";
    /** Global store of key assignments: API key to plan id. */
    public static final String KEY_CATALOG_STORE = "key-catalog";
    /** Per-task store of key entries: each key's limiter state and usage of its open hours. */
    public static final String STATE_STORE = QuotaProcessor.STATE_STORE;
    /** Per-task store of the request ids remembered as idempotency keys, in batches. */
    public static final String REQUEST_IDS_STORE = RequestIds.STORE;
    /** Store of usage per plan and hour. */
    public static final String PLAN_USAGE_STORE = "plan-usage-by-hour";

    private final EnforcerConfig config;
    private final Topics topics;
    private final DecisionStats stats;
    private final Predicate<String> replyTopicExists;

    /** A topology that counts into a stats object of its own and takes every allowed reply topic to exist. */
    public QuotaTopology(EnforcerConfig config) {
        this(config, new DecisionStats(), topic -> true);
    }

    /**
     * @param stats            where the running topology counts its decisions and dead letters
     * @param replyTopicExists whether a reply topic a gateway names exists (replies to others are not sent)
     */
    public QuotaTopology(EnforcerConfig config, DecisionStats stats, Predicate<String> replyTopicExists) {
        this.config = config;
        this.topics = Topics.withPrefix(config.topicPrefix());
        this.stats = stats;
        this.replyTopicExists = replyTopicExists;
    }

    public Topics topics() {
        return topics;
    }

    /**
     * The Kafka Streams properties this topology runs with: the configuration's, with
     * {@link DeadLetterExceptionHandler} for records that cannot be read, processed or written (unless
     * the configuration names handlers of its own), and the settings that handler reads. A new object each call.
     */
    public Properties streamsProperties() {
        Properties props = config.streamsProperties();
        for (String handler : List.of(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG)) {
            props.putIfAbsent(handler, DeadLetterExceptionHandler.class);
        }
        props.put(EnforcerConfig.TOPIC_PREFIX_CONFIG, config.topicPrefix());
        props.put(EnforcerConfig.DEAD_LETTER_MAX_BYTES_CONFIG, config.deadLetterMaxBytes());
        return props;
    }

    public Topology build() {
        StreamsBuilder builder = new StreamsBuilder();
        CatalogChanges planChanges = new CatalogChanges();
        CatalogChanges assignmentChanges = new CatalogChanges();
        buildCatalogs(builder, planChanges, assignmentChanges);
        buildDecisions(builder, planChanges, assignmentChanges);
        return builder.build();
    }

    private void buildCatalogs(StreamsBuilder builder, CatalogChanges planChanges, CatalogChanges assignmentChanges) {
        // Global stores loaded through a check rather than global tables: what is written onto a catalog
        // topic directly, bypassing the validators below, cannot displace a valid plan or assignment.
        builder.addGlobalStore(Stores.timestampedKeyValueStoreBuilder(Stores.inMemoryKeyValueStore(PLAN_CATALOG_STORE),
                        Serdes.String(), Serdes.ByteArray()), topics.planCatalog().name(), topics.planCatalog().consumed(),
                () -> CatalogLoader.plans(PLAN_CATALOG_STORE, planChanges));
        builder.addGlobalStore(keyCatalogStore(), topics.keyCatalog().name(), topics.keyCatalog().consumed(),
                () -> CatalogLoader.assignments(KEY_CATALOG_STORE, assignmentChanges));
        validate(builder, topics.plans(), PlanValidator::new, topics.planCatalog(), "plan");
        validate(builder, topics.apiKeys(), KeyAssignmentValidator::new, topics.keyCatalog(), "api-key");
    }

    /**
     * The key catalog's global store: RocksDB, as the catalog may name millions of keys, behind a filter
     * that answers most lookups of a key it lacks without RocksDB ({@link KnownKeysStore}).
     */
    static StoreBuilder<TimestampedKeyValueStore<String, String>> keyCatalogStore() {
        return Stores.timestampedKeyValueStoreBuilder(
                KnownKeysStore.supplier(Stores.persistentTimestampedKeyValueStore(KEY_CATALOG_STORE)), Serdes.String(), Serdes.String());
    }

    private <V> void validate(StreamsBuilder builder, Topic<String, byte[]> source,
                              ProcessorSupplier<String, byte[], String, CatalogUpdate<V>> validator,
                              Topic<String, V> catalog, String name) {
        KStream<String, CatalogUpdate<V>> updates = builder.stream(source.name(), source.consumed())
                .process(validator, Named.as(name + "-validator"));
        KStream<String, CatalogUpdate.Accepted<V>> accepted =
                carrying(updates.filter((key, update) -> update instanceof CatalogUpdate.Accepted, Named.as(name + "-accepted")));
        accepted.mapValues(CatalogUpdate.Accepted::value, Named.as(name + "-catalog-value"))
                .to(catalog.name(), catalog.produced());
        KStream<String, CatalogUpdate.Rejected<V>> rejected =
                carrying(updates.filterNot((key, update) -> update instanceof CatalogUpdate.Accepted, Named.as(name + "-rejected")));
        deadLetters(rejected.mapValues(CatalogUpdate.Rejected::rejection, Named.as(name + "-rejection")), name);
    }

    private void buildDecisions(StreamsBuilder builder, CatalogChanges planChanges, CatalogChanges assignmentChanges) {
        RequestParser parser = requestParser();
        KeyPlacement placement = keyPlacement();
        ReplyRouting replies = replyRouting();
        // The common path (placed on its key's partition, decided) is kept to as few nodes as it takes:
        // the intake sends each request straight to the node named for it.
        KStream<String, Object> intake = builder
                .stream(topics.requests().name(), topics.requests().consumed())
                .process(requestIntake(), Named.as("request-intake"));
        KStream<String, KeyInput> placed = carrying(intake);
        KStream<String, KeyInput> rekeyed = QuotaTopology.<RequestEvent>carrying(intake)
                .map((key, request) -> KeyValue.pair(request.apiKey(), request), Named.as(RequestIntake.MISPLACED))
                .repartition(Repartitioned.<String, RequestEvent>as(Topics.REKEYED_REQUESTS)
                        .withKeySerde(Topics.REKEYED.keySerde())
                        .withValueSerde(Topics.REKEYED.valueSerde())
                        .withNumberOfPartitions(config.requestPartitions()))
                .mapValues(request -> request == null ? null : new KeyInput.Request(request), Named.as("rekeyed-input"));
        CommandParser commandParser = new CommandParser(config.requestMaxBytes());
        Map<String, KStream<String, CommandIntake.Read>> commands = commandRoutes(builder, commandParser, placement);
        KStream<String, CommandIntake.Read.Accepted> commandsElsewhere = carrying(commands.get("command-intake-misplaced"));
        KStream<String, KeyInput> rekeyedCommands = commandsElsewhere
                .map((key, read) -> KeyValue.pair(read.command().apiKey(), read.command()), Named.as("misplaced-command"))
                .repartition(Repartitioned.<String, KeyCommand>as(Topics.REKEYED_COMMANDS)
                        .withKeySerde(Topics.REKEYED_COMMAND.keySerde())
                        .withValueSerde(Topics.REKEYED_COMMAND.valueSerde())
                        .withNumberOfPartitions(config.requestPartitions()))
                .mapValues(command -> command == null ? null : new KeyInput.Command(command), Named.as("rekeyed-command-input"));
        KStream<String, CommandIntake.Read.Accepted> commandsInPlace = carrying(commands.get("command-intake-placed"));
        KStream<String, KeyInput> placedCommands = commandsInPlace
                .mapValues(read -> new KeyInput.Command(read.command()), Named.as("placed-command"));
        // What comes back from the re-keying topics is checked like public input before a task acts on it;
        // a tombstone there stays a null input, which the check refuses.
        Map<String, KStream<String, RekeyedInputCheck.Checked>> checked = rekeyed
                .merge(rekeyedCommands, Named.as("rekeyed-inputs"))
                .processValues(() -> new RekeyedInputCheck(parser, commandParser, placement, replies), Named.as("rekeyed-check"))
                .split(Named.as("rekeyed-"))
                .branch((key, check) -> check instanceof RekeyedInputCheck.Checked.Passed, Branched.as("passed"))
                .defaultBranch(Branched.as("refused"));
        deadLetters(QuotaTopology.<RekeyedInputCheck.Checked.Refused>carrying(checked.get("rekeyed-refused"))
                .mapValues(RekeyedInputCheck.Checked.Refused::rejection, Named.as("rekeyed-rejection")), "rekeyed");
        KStream<String, RekeyedInputCheck.Checked.Passed> passed = carrying(checked.get("rekeyed-passed"));
        KStream<String, KeyInput> keyInputs = passed
                .mapValues(RekeyedInputCheck.Checked.Passed::input, Named.as("rekeyed-checked"))
                .merge(placedCommands, Named.as("rekeyed-and-commands"));
        KStream<String, Object> decider = placed
                .merge(keyInputs, Named.as(RequestIntake.PLACED))
                .process(quotaDecider(planChanges, assignmentChanges), Named.as("quota-decider"));
        buildUsage(decider);
        buildOutcomes(decider);
        deadLetters(carrying(intake), RequestIntake.REQUEST);
        QuotaTopology.<Decision>carrying(intake).to(topics.decisions().name(),
                topics.decisions().produced().withName(OutcomePublisher.INVALID_REQUEST_DECISIONS));
        QuotaTopology.<ReplyRouting.Reply>carrying(intake).to(ReplyRouting.topic(),
                ReplyRouting.produced(topics.replies()).withName(OutcomePublisher.INVALID_REQUEST_REPLIES));
    }

    /** The processor each task reads its request records with, as the topology runs it. */
    ProcessorSupplier<String, byte[], String, Object> requestIntake() {
        RequestParser parser = requestParser();
        KeyPlacement placement = keyPlacement();
        ReplyRouting replies = replyRouting();
        return () -> new RequestIntake(parser, placement, replies, stats);
    }

    /** Each task's deciding processor with its stores, as the topology runs it. */
    ProcessorSupplier<String, KeyInput, String, Object> quotaDecider(CatalogChanges planChanges, CatalogChanges assignmentChanges) {
        return QuotaProcessor.supplier(stats, planChanges, assignmentChanges, config.defaultPlan(), config.expiryIntervalMs(),
                config.requestMaxLatenessMs(), config.dedupWindowMs(), config.defaultPlanMaxKeys(), config.usageIntervalMs(),
                BatchChangelogConfig.of(config.streamsProperties()));
    }

    private RequestParser requestParser() {
        return new RequestParser(config.requestMaxBytes(), config.requestMaxCost(), config.requestMaxAheadMs());
    }

    private KeyPlacement keyPlacement() {
        return new KeyPlacement(config.requestPartitions());
    }

    private ReplyRouting replyRouting() {
        return new ReplyRouting(topics.replies().name(), replyTopicExists);
    }

    /** The sinks the deciding processor sends each outcome to ({@link OutcomePublisher}). */
    private void buildOutcomes(KStream<String, Object> decider) {
        QuotaTopology.<Decision>carrying(decider).to(topics.decisions().name(),
                topics.decisions().produced().withName(OutcomePublisher.DECISIONS));
        QuotaTopology.<ReplyRouting.Reply>carrying(decider).to(ReplyRouting.topic(),
                ReplyRouting.produced(topics.replies()).withName(OutcomePublisher.REPLIES));
        QuotaTopology.<QuotaExceeded>carrying(decider).to(topics.exceeded().name(),
                topics.exceeded().produced().withName(OutcomePublisher.EXCEEDED));
        QuotaTopology.<Block>carrying(decider)
                .process(BlockLapses.supplier(), Named.as(OutcomePublisher.BLOCKS))
                .to(topics.blocks().name(), topics.blocks().produced().withName("blocks-sink"));
        deadLetters(carrying(decider), OutcomePublisher.COMMAND_APPLY);
        deadLetters(carrying(decider), OutcomePublisher.LATE);
    }

    /**
     * Admin commands keyed by API key on its requests' partition: those produced there already go
     * straight to the key's task, the rest through a repartition topic sized like the requests topic;
     * unreadable ones to the dead-letter topic. Routes by branch name: placed, misplaced.
     */
    private Map<String, KStream<String, CommandIntake.Read>> commandRoutes(StreamsBuilder builder, CommandParser parser,
                                                                        KeyPlacement placement) {
        Map<String, KStream<String, CommandIntake.Read>> routes = builder
                .stream(topics.commands().name(), topics.commands().consumed())
                .processValues(() -> new CommandIntake(parser, placement), Named.as("command-intake"))
                .split(Named.as("command-intake-"))
                .branch((key, read) -> read instanceof CommandIntake.Read.Accepted accepted && accepted.placed(),
                        Branched.as("placed"))
                .branch((key, read) -> read instanceof CommandIntake.Read.Accepted, Branched.as("misplaced"))
                .defaultBranch(Branched.as("rejected"));
        deadLetters(QuotaTopology.<CommandIntake.Read.Rejected>carrying(routes.get("command-intake-rejected"))
                .mapValues(CommandIntake.Read.Rejected::rejection, Named.as("unreadable-command")), "command");
        return routes;
    }

    /**
     * Per key and calendar hour (of event time), what was allowed and denied, counted in the deciding
     * task and written once per usage interval; per plan and hour, the sum of the tasks' shares.
     */
    private void buildUsage(KStream<String, Object> decider) {
        QuotaTopology.<KeyUsage>carrying(decider).to(topics.usage().name(),
                topics.usage().produced().withName(QuotaProcessor.KEY_USAGE));
        QuotaTopology.<PlanUsagePart>carrying(decider)
                .repartition(Repartitioned.<String, PlanUsagePart>as(Topics.PLAN_USAGE_SHARES.name())
                        .withKeySerde(Topics.PLAN_USAGE_SHARES.keySerde())
                        .withValueSerde(Topics.PLAN_USAGE_SHARES.valueSerde()))
                .processValues(PlanUsageTotals.supplier(topics.planUsage().valueSerde()), Named.as("plan-usage-totals"))
                .to(topics.planUsage().name(), topics.planUsage().produced());
    }

    /** How many request ids a record of the {@link #REQUEST_IDS_STORE} changelog holds. */
    public static long requestIdsIn(byte[] batch) {
        long[] ids = {0};
        RequestIdBatch.SERDE.deserializer().deserialize(null, batch).forEach((id, time, decision) -> ids[0]++);
        return ids[0];
    }

    /**
     * The changes of key entries a {@link #STATE_STORE} changelog record holds, in order, a deletion as a
     * null value: a batch's ({@link BatchChangelogStore}); a record written under an API key before
     * batches, itself; none for a batch's tombstone.
     */
    public static List<KeyValue<byte[], byte[]>> keyEntriesIn(byte[] key, byte[] value) {
        if (BatchChangelogStore.batchNumber(key) < 0) {
            return Collections.singletonList(KeyValue.pair(key, value));
        }
        List<KeyValue<byte[], byte[]>> entries = new ArrayList<>();
        if (value != null) {
            ChangeBatch.forEach(value, (entryKey, entry) -> entries.add(KeyValue.pair(entryKey, entry)));
        }
        return entries;
    }

    /** How many bytes of a key entry of the {@link #STATE_STORE} changelog are the key's limiter state (0 for none). */
    public static int keyStateBytesIn(byte[] entry) {
        byte[] state = KeyEntrySerde.read(entry).stateBytes();
        return state == null ? 0 : state.length;
    }

    /** How many hourly usage figures a key entry of the {@link #STATE_STORE} changelog holds. */
    public static long usageHoursIn(byte[] entry) {
        return KeyEntrySerde.read(entry).hours().size();
    }

    /** The key of an hour's figure of a key or plan, {@code <id>@<hour>}, in the usage topics and the plan usage store. */
    public static String hourKey(String id, Instant hour) {
        return id + "@" + InstantText.of(hour);
    }


    /**
     * The output of a processor that forwards to each of its children by name, or a branch of a split
     * by type, seen as carrying the one type it sends to the node about to be attached.
     */
    @SuppressWarnings("unchecked")
    private static <V> KStream<String, V> carrying(KStream<String, ?> forwarded) {
        return (KStream<String, V>) forwarded;
    }

    /** The name of the node that writes the dead letters of {@code source}. */
    static String deadLetterNode(String source) {
        return source + "-dead-letter";
    }

    private <K> void deadLetters(KStream<K, Rejection> rejections, String source) {
        int maxBytes = config.deadLetterMaxBytes();
        rejections.process(() -> new DeadLetterWriter<K>(maxBytes), Named.as(deadLetterNode(source)))
                .peek((key, value) -> stats.deadLettered(source), Named.as(source + "-count-dead-letter"))
                .to(topics.deadLetter().name(), topics.deadLetter().produced());
    }
}

package dev.quotaenforcer.topology;

import static dev.quotaenforcer.topology.EnforcerDriver.at;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.quotaenforcer.RepositoryFiles;
import dev.quotaenforcer.event.CommandParser;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.event.RequestParser;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.PlanParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JSON Schemas in {@code schemas/} against the records the production topology really reads and
 * writes: one run through every kind of decision, event and figure, each record checked against the
 * schema of its topic.
 */
class EventSchemasTest {

    static final Path SCHEMAS = RepositoryFiles.path("schemas");
    static final String ID_PREFIX = "https://quota-enforcer.dev/schemas/";
    static final ObjectMapper JSON = new ObjectMapper();

    static final String REQUEST = "request.schema.json";
    static final String DECISION = "decision.schema.json";
    static final String EXCEEDED = "quota-exceeded.schema.json";
    static final String KEY_USAGE = "key-usage.schema.json";
    static final String PLAN_USAGE = "plan-usage.schema.json";
    static final String BLOCK = "block.schema.json";
    static final String COMMAND = "command.schema.json";
    static final String PLAN = "plan.schema.json";
    static final String ASSIGNMENT = "assignment.schema.json";
    /** The key catalog holds each key's plan id as plain text, not JSON: checked as the plan schema's name. */
    static final String PLAN_ID = PLAN + "#/$defs/name";

    static final String METERED = """
            {"id": "metered",
             "rateLimits": [{"name": "burst", "algorithm": "token-bucket", "capacity": 3, "refillPerSecond": 1}],
             "quota": {"name": "hourly", "limit": 5, "window": "PT1H"}}""";
    static final String WINDOWED = """
            {"id": "windowed",
             "rateLimits": [{"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 2, "window": "PT1M"},
                            {"name": "drip", "algorithm": "leaky-bucket", "capacity": 10, "refillTokens": 5, "refillPeriod": "PT1M"}]}""";

    static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder
                    .schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build())
                    .schemas(schemaTexts()));

    @TempDir
    static Path stateDir;

    /** Every record published and read in the run, by topic name: the JSON values, tombstones left out. */
    static final Map<String, List<String>> RECORDS = new LinkedHashMap<>();
    /** Inputs the run publishes that the enforcer must refuse, by topic. */
    static final Map<String, List<String>> REFUSED_INPUTS = new LinkedHashMap<>();
    static Topics topics;
    static TopologyDescription description;

    /**
     * One run through every output the enforcer has: allowed and denied by rate limit and by quota, an
     * operator's block (with and without end), unknown key, unknown plan, invalid request, a reply, a
     * repeated request, exceeded events of buckets and windows, blocks, and an interval's usage figures.
     */
    @BeforeAll
    static void runTheTopology() throws IOException {
        try (EnforcerDriver enforcer = new EnforcerDriver(stateDir)) {
            topics = enforcer.topology.topics();
            description = enforcer.topology.build().describe();
            Publisher publish = new Publisher(enforcer);

            publish.plan("metered", METERED);
            publish.plan("windowed", WINDOWED);
            try (Stream<Path> seeds = Files.list(RepositoryFiles.path("topics", "seed", "plans"))) {
                for (Path seed : seeds.sorted().toList()) {
                    String json = Files.readString(seed);
                    publish.plan(JSON.readTree(json).get("id").textValue(), json);
                }
            }
            for (String key : List.of("k-rate", "k-quota", "k-block", "k-forever")) {
                publish.assign(key, "metered");
            }
            publish.assign("k-window", "windowed");
            publish.assign("k-gone", "retired");
            publish.assign("k-demo", "trial");

            for (int i = 1; i <= 4; i++) {
                publish.request("k-rate", "{\"requestId\": \"rate-" + i + "\", \"apiKey\": \"k-rate\"}", at(0, 0));
            }
            for (int i = 1; i <= 6; i++) {
                Instant time = at(0, 2 * i);
                String timestamp = i % 2 == 0 ? "\"" + time + "\"" : Long.toString(time.toEpochMilli());
                publish.request("k-quota", "{\"requestId\": \"quota-" + i + "\", \"apiKey\": \"k-quota\", \"cost\": 1, "
                        + "\"timestamp\": " + timestamp + ", \"gateway\": \"edge-1\"}", time);
            }
            for (int i = 1; i <= 3; i++) {
                publish.request("k-window", "{\"requestId\": \"window-" + i + "\", \"apiKey\": \"k-window\", \"cost\": null}",
                        at(1, 0));
            }
            publish.request("k-unknown", "{\"requestId\": \"who-1\", \"apiKey\": \"k-unknown\"}", at(1, 1));
            publish.request("k-gone", "{\"requestId\": \"gone-1\", \"apiKey\": \"k-gone\"}", at(1, 2));
            publish.refusedRequest("k-rate", "{\"requestId\": \"bad-1\", \"apiKey\": \"k-rate\", \"cost\": \"two\"}", at(1, 3));
            Headers replyTo = new RecordHeaders();
            replyTo.add(ReplyAddress.TOPIC_HEADER, topics.replies().name().getBytes(StandardCharsets.UTF_8));
            replyTo.add(ReplyAddress.CORRELATION_HEADER, "corr-1".getBytes(StandardCharsets.UTF_8));
            publish.request("k-demo", "{\"requestId\": \"demo-1\", \"apiKey\": \"k-demo\", \"cost\": 2}", replyTo, at(1, 4));
            publish.request("k-demo", "{\"requestId\": \"demo-1\", \"apiKey\": \"k-demo\", \"cost\": 2}", at(1, 5));

            publish.command("k-block", """
                    {"type": "block", "apiKey": "k-block", "until": "2026-11-30T13:00:00Z",
                     "commandId": "c-1", "issuer": "ops", "reason": "scraping"}""", at(2, 0));
            publish.request("k-block", "{\"requestId\": \"blocked-1\", \"apiKey\": \"k-block\"}", at(2, 1));
            publish.command("k-forever", "{\"type\": \"block\", \"apiKey\": \"k-forever\", \"until\": null}", at(2, 2));
            publish.request("k-forever", "{\"requestId\": \"forever-1\", \"apiKey\": \"k-forever\"}", at(2, 3));
            publish.command("k-forever", "{\"type\": \"unblock\", \"apiKey\": \"k-forever\"}", at(2, 4));
            publish.command("k-nobody", "{\"type\": \"block\", \"apiKey\": \"k-nobody\"}", at(2, 5));
            publish.command("k-quota", """
                    {"type": "grant", "apiKey": "k-quota", "policy": "hourly", "amount": 2, "issuer": "ops",
                     "reason": "launch day"}""", at(2, 6));
            publish.request("k-quota", "{\"requestId\": \"quota-7\", \"apiKey\": \"k-quota\"}", at(2, 7));
            publish.command("k-rate", "{\"type\": \"reset\", \"apiKey\": \"k-rate\", \"policy\": \"burst\"}", at(2, 8));
            publish.command("k-window", "{\"type\": \"RESET\", \"apiKey\": \"k-window\", \"tool\": \"console\"}", at(2, 9));

            // Usage is written by a wall-clock punctuator, once per usage interval.
            enforcer.driver.advanceWallClockTime(Duration.ofSeconds(1));
            for (String output : topics.outputs()) {
                enforcer.driver.createOutputTopic(output, Serdes.String().deserializer(), Serdes.String().deserializer())
                        .readValuesToList().stream()
                        .filter(value -> value != null)
                        .forEach(value -> RECORDS.computeIfAbsent(output, topic -> new ArrayList<>()).add(value));
            }
        }
    }

    /** The schema of each topic's values; null for the one topic that has none. */
    static Map<String, String> schemaOfTopic() {
        Map<String, String> schemas = new HashMap<>();
        schemas.put(topics.requests().name(), REQUEST);
        schemas.put(topics.plans().name(), PLAN);
        schemas.put(topics.apiKeys().name(), ASSIGNMENT);
        schemas.put(topics.commands().name(), COMMAND);
        schemas.put(topics.decisions().name(), DECISION);
        schemas.put(topics.replies().name(), DECISION);
        schemas.put(topics.exceeded().name(), EXCEEDED);
        schemas.put(topics.usage().name(), KEY_USAGE);
        schemas.put(topics.planUsage().name(), PLAN_USAGE);
        schemas.put(topics.blocks().name(), BLOCK);
        schemas.put(topics.planCatalog().name(), PLAN);
        schemas.put(topics.keyCatalog().name(), PLAN_ID);
        // Its values are the original bytes of what could not be read: anything at all.
        schemas.put(topics.deadLetter().name(), null);
        return schemas;
    }

    @Test
    void everyTopicOfTheEnforcerHasASchemaAndEveryOutputTopicIsCovered() {
        Map<String, String> schemas = schemaOfTopic();
        assertEquals(new TreeSet<>(topics.names()), new TreeSet<>(schemas.keySet()),
                "a topic the enforcer uses needs a schema here (or the reason it has none)");
        for (String output : topics.outputs()) {
            assertTrue(schemas.get(output) != null, output + " is written by the enforcer and has no schema");
            assertFalse(records(output).isEmpty(), "the run wrote nothing to " + output + ", so its schema went unchecked");
        }
    }

    @Test
    void everyTopicTheBuiltTopologyReadsOrWritesHasASchema() {
        Set<String> used = new TreeSet<>();
        Set<String> dynamicSinks = new TreeSet<>();
        for (TopologyDescription.Subtopology subtopology : description.subtopologies()) {
            for (TopologyDescription.Node node : subtopology.nodes()) {
                if (node instanceof TopologyDescription.Source source) {
                    used.addAll(source.topicSet());
                } else if (node instanceof TopologyDescription.Sink sink && sink.topic() != null) {
                    used.add(sink.topic());
                } else if (node instanceof TopologyDescription.Sink) {
                    dynamicSinks.add(node.name());
                }
            }
        }
        description.globalStores().forEach(store -> used.addAll(store.source().topicSet()));
        // Streams' own repartition topics carry the enforcer's internal forms, read back by itself only.
        used.removeIf(topic -> topic.endsWith("-repartition"));
        assertEquals(new TreeSet<>(Set.of(OutcomePublisher.REPLIES, OutcomePublisher.INVALID_REQUEST_REPLIES)), dynamicSinks,
                "only the sinks of replies pick their topic per record: the gateway's reply topic");
        used.add(topics.replies().name());
        assertEquals(used, new TreeSet<>(schemaOfTopic().keySet()));
    }

    @Test
    void everySchemaFileIsTheSchemaOfATopicAndCheckedAgainstItsRecords() throws IOException {
        Set<String> files;
        try (Stream<Path> list = Files.list(SCHEMAS)) {
            files = list.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".json"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> checked = new TreeSet<>();
        schemaOfTopic().forEach((topic, schema) -> {
            if (schema != null && !records(topic).isEmpty()) {
                checked.add(schema.replaceFirst("#.*", ""));
            }
        });
        assertEquals(files, checked, "every schema file validates real records of a topic, and no other files lie there");
    }

    @Test
    void everyDecisionTheTopologyWritesMatchesTheDecisionSchema() {
        List<String> decisions = records(topics.decisions().name());
        assertAllValid(DECISION, decisions);
        assertAllValid(DECISION, records(topics.replies().name()));
        Set<String> reasons = decisions.stream().map(json -> field(json, "reason")).collect(Collectors.toCollection(TreeSet::new));
        Set<String> published = Arrays.stream(Reason.values()).filter(reason -> reason != Reason.UNAVAILABLE)
                .map(Reason::name).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(published, reasons, "the run covers every reason the enforcer decides with (UNAVAILABLE is the client's own)");
        assertEquals(published, new TreeSet<>(enumOf(DECISION, "reason")), "the schema lists exactly those reasons");
    }

    @Test
    void everyQuotaExceededEventMatchesItsSchemaForBucketsAndWindows() {
        List<String> events = records(topics.exceeded().name());
        assertAllValid(EXCEEDED, events);
        Set<String> kinds = events.stream().map(json -> field(json, "kind")).collect(Collectors.toSet());
        assertEquals(Set.of("RATE", "QUOTA"), kinds);
        assertTrue(events.stream().anyMatch(json -> field(json, "windowStart") == null), "a bucket's event, without window");
        assertTrue(events.stream().anyMatch(json -> field(json, "windowStart") != null), "a window's event");
    }

    @Test
    void everyBlockTheTopologyWritesMatchesTheBlockSchema() {
        List<String> blocks = records(topics.blocks().name());
        assertAllValid(BLOCK, blocks);
        Set<String> reasons = blocks.stream().map(json -> field(json, "reason")).collect(Collectors.toSet());
        assertEquals(Set.of("RATE_LIMITED", "QUOTA_EXCEEDED", "BLOCKED"), reasons);
        assertTrue(blocks.stream().anyMatch(json -> field(json, "until") == null), "an operator's block without end");
        assertTrue(blocks.stream().anyMatch(json -> field(json, "plan") == null), "an operator's block of a key without plan");
    }

    @Test
    void everyUsageFigureMatchesItsSchemaPerKeyAndPerPlan() {
        assertAllValid(KEY_USAGE, records(topics.usage().name()));
        assertAllValid(PLAN_USAGE, records(topics.planUsage().name()));
    }

    @Test
    void everyCatalogRecordTheValidatorsWriteMatchesThePlanSchemaOrIsAPlanId() {
        assertAllValid(PLAN, records(topics.planCatalog().name()));
        List<String> planIds = records(topics.keyCatalog().name());
        assertAllValid(PLAN_ID, planIds.stream().map(EventSchemasTest::quoted).toList());
    }

    @Test
    void everyInputRecordTheRunPublishesMatchesItsInputSchema() {
        for (String input : List.of(topics.requests().name(), topics.plans().name(), topics.apiKeys().name(),
                topics.commands().name())) {
            assertFalse(records(input).isEmpty(), input);
            assertAllValid(schemaOfTopic().get(input), records(input));
        }
    }

    @Test
    void aRequestTheEnforcerAnswersAsInvalidIsRejectedByTheRequestSchema() {
        List<String> refused = REFUSED_INPUTS.get(topics.requests().name());
        assertFalse(refused.isEmpty());
        refused.forEach(json -> assertInvalid(REQUEST, json));
    }

    /** A real record of each schema's topic, made wrong in one way the schema must notice. */
    static Stream<Arguments> brokenRecords() {
        return Stream.of(
                broken(DECISION, topics.decisions(), "without reason", node -> node.remove("reason")),
                broken(DECISION, topics.decisions(), "with a limit as text", node -> node.put("limit", "100")),
                broken(DECISION, topics.decisions(), "allowed with a denial's reason",
                        node -> node.put("allowed", true).put("reason", "RATE_LIMITED")),
                broken(DECISION, topics.decisions(), "with a header no gateway sends",
                        node -> ((ObjectNode) node.get("headers")).put("X-Debug", "1")),
                broken(DECISION, topics.decisions(), "with a reason only clients give", node -> node.put("reason", "UNAVAILABLE")),
                broken(REQUEST, topics.requests(), "with a cost of the wrong type", node -> node.put("cost", "1")),
                broken(REQUEST, topics.requests(), "without API key", node -> node.remove("apiKey")),
                broken(REQUEST, topics.requests(), "with an API key one character too long",
                        node -> node.put("apiKey", "k".repeat(RequestParser.MAX_ID_LENGTH + 1))),
                broken(EXCEEDED, topics.exceeded(), "of an unknown kind", node -> node.put("kind", "BURST")),
                broken(EXCEEDED, topics.exceeded(), "with a time that is no date-time", node -> node.put("time", "noon")),
                broken(KEY_USAGE, topics.usage(), "with a field more", node -> node.put("extra", 1)),
                broken(KEY_USAGE, topics.usage(), "with a negative count", node -> node.put("allowed", -1)),
                broken(PLAN_USAGE, topics.planUsage(), "without hour", node -> node.remove("hour")),
                broken(BLOCK, topics.blocks(), "with reason OK", node -> node.put("reason", "OK")),
                broken(BLOCK, topics.blocks(), "without end but with a Retry-After",
                        node -> node.putNull("until").put("retryAfterSeconds", 5)),
                broken(COMMAND, topics.commands(), "of an unknown type", node -> node.put("type", "delete")),
                broken(COMMAND, topics.commands(), "a grant without amount",
                        node -> node.put("type", "grant").put("policy", "hourly").remove("amount")),
                broken(COMMAND, topics.commands(), "an unblock with an end",
                        node -> node.put("type", "unblock").put("until", "2026-12-01T00:00:00Z")),
                broken(PLAN, topics.plans(), "with a field no plan has", node -> node.put("burst", 10)),
                broken(PLAN, topics.plans(), "without id", node -> node.remove("id")),
                broken(ASSIGNMENT, topics.apiKeys(), "naming no valid plan", node -> node.put("plan", "")),
                broken(ASSIGNMENT, topics.apiKeys(), "with a field more", node -> node.put("until", "never")));
    }

    private static Arguments broken(String schema, Topic<?, ?> topic, String how, Consumer<ObjectNode> change) {
        return Arguments.of(schema, topic.name(), how, change);
    }

    @ParameterizedTest(name = "{0} rejects a record of {1} {2}")
    @MethodSource("brokenRecords")
    void eachSchemaRejectsARealRecordMadeWrong(String schema, String topic, String how, Consumer<ObjectNode> change) {
        String original = records(topic).get(0);
        assertValid(schema, original);
        ObjectNode node = (ObjectNode) tree(original);
        change.accept(node);
        assertInvalid(schema, node.toString());
    }

    /** Requests at the parser's bounds, with whether the enforcer takes them (under the largest cost it can be configured with). */
    static Stream<Arguments> requestsAtTheBounds() {
        String key256 = "k".repeat(RequestParser.MAX_ID_LENGTH);
        return Stream.of(
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"" + key256 + "\"}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"" + key256 + "k\"}", false),
                Arguments.of("{\"requestId\": \"\", \"apiKey\": \"k\"}", false),
                Arguments.of("{\"requestId\": 7, \"apiKey\": \"k\"}", false),
                Arguments.of("{\"apiKey\": \"k\"}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"cost\": 0}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"cost\": 1000000000}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"cost\": 1000000001}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"cost\": null}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"cost\": true}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T12:00:59Z\"}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T12:00:59.123+01:00\"}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T12:00Z\"}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30t12:00:59z\"}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T12:00:59+01\"}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T12:00:59+0100\"}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30 12:00:59Z\"}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": \"2026-11-30T12:00:59\"}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": 1764504059000}", true),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": -1}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": 253402300800000}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"timestamp\": {}}", false),
                Arguments.of("{\"requestId\": \"r\", \"apiKey\": \"k\", \"route\": {\"path\": \"/v1\"}}", true),
                Arguments.of("[\"r\", \"k\"]", false));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("requestsAtTheBounds")
    void theRequestSchemaAcceptsWhatTheRequestParserAcceptsAtItsBounds(String json, boolean accepted) {
        RequestParser parser = new RequestParser(64 * 1024, 1_000_000_000L, 0);
        // A record timestamp at the latest event time accepted, so no timestamp lies ahead of it.
        boolean parsed = parser.parse(bytes(json), RequestParser.MAX_TIMESTAMP) instanceof RequestParser.Parsed.Accepted;
        assertEquals(accepted, parsed, "the parser");
        assertEquals(accepted, errors(REQUEST, json).isEmpty(), () -> "the schema: " + errors(REQUEST, json));
    }

    static Stream<Arguments> commandsAtTheBounds() {
        return Stream.of(
                Arguments.of("{\"type\": \"reset\", \"apiKey\": \"k\"}", true),
                Arguments.of("{\"type\": \"Unblock\", \"apiKey\": \"k\", \"note\": \"tools may add fields\"}", true),
                Arguments.of("{\"type\": \"freeze\", \"apiKey\": \"k\"}", false),
                Arguments.of("{\"apiKey\": \"k\"}", false),
                Arguments.of("{\"type\": \"reset\"}", false),
                Arguments.of("{\"type\": \"grant\", \"apiKey\": \"k\", \"policy\": \"p\", \"amount\": " + CommandParser.MAX_GRANT + "}",
                        true),
                Arguments.of("{\"type\": \"grant\", \"apiKey\": \"k\", \"policy\": \"p\", \"amount\": "
                        + (CommandParser.MAX_GRANT + 1) + "}", false),
                Arguments.of("{\"type\": \"grant\", \"apiKey\": \"k\", \"policy\": \"p\", \"amount\": 0}", false),
                Arguments.of("{\"type\": \"grant\", \"apiKey\": \"k\", \"amount\": 5}", false),
                Arguments.of("{\"type\": \"reset\", \"apiKey\": \"k\", \"amount\": 5}", false),
                Arguments.of("{\"type\": \"block\", \"apiKey\": \"k\", \"policy\": \"p\"}", false),
                Arguments.of("{\"type\": \"block\", \"apiKey\": \"k\", \"until\": \"2026-12-01T00:00:00+01:00\"}", true),
                Arguments.of("{\"type\": \"block\", \"apiKey\": \"k\", \"until\": \"tomorrow\"}", false),
                Arguments.of("{\"type\": \"reset\", \"apiKey\": \"k\", \"until\": \"2026-12-01T00:00:00Z\"}", false),
                Arguments.of("{\"type\": \"reset\", \"apiKey\": \"k\", \"reason\": \"" + "x".repeat(1024) + "\"}", true),
                Arguments.of("{\"type\": \"reset\", \"apiKey\": \"k\", \"reason\": \"" + "x".repeat(1025) + "\"}", false),
                Arguments.of("{\"type\": \"reset\", \"apiKey\": \"k\", \"issuer\": \"\"}", false),
                Arguments.of("{\"type\": \"reset\", \"apiKey\": \"k\", \"commandId\": null, \"issuer\": null}", true));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("commandsAtTheBounds")
    void theCommandSchemaAcceptsWhatTheCommandParserAccepts(String json, boolean accepted) {
        assertEquals(accepted, new CommandParser(64 * 1024).parse(bytes(json)) instanceof CommandParser.Parsed.Accepted, "the parser");
        assertEquals(accepted, errors(COMMAND, json).isEmpty(), () -> "the schema: " + errors(COMMAND, json));
    }

    static Stream<Arguments> plansAtTheBounds() {
        String windowed = "{\"id\": \"p\", \"rateLimits\": [{\"name\": \"r\", \"algorithm\": \"%s\", \"limit\": %d, \"window\": \"%s\"}]}";
        return Stream.of(
                Arguments.of("{\"id\": \"p\", \"quota\": {\"limit\": 10}}", true),
                Arguments.of("{\"id\": \"p\"}", false),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [], \"quota\": null}", false),
                Arguments.of("{\"id\": \"-p\", \"quota\": {\"limit\": 10}}", false),
                Arguments.of("{\"id\": \"p\", \"quota\": {\"limit\": 10, \"algorithm\": \"token-bucket\"}}", false),
                Arguments.of(windowed.formatted("fixed-window", 1_000_000_000, "PT1M"), true),
                Arguments.of(windowed.formatted("fixed-window", 1_000_000_001, "PT1M"), false),
                Arguments.of(windowed.formatted("sliding-window-log", 1000, "P31D"), true),
                Arguments.of(windowed.formatted("sliding-window-log", 1001, "PT1M"), false),
                Arguments.of(windowed.formatted("fixed-window", 5, "one minute"), false),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [{\"name\": \"r\", \"algorithm\": \"fixed-window\", \"limit\": 5}]}", false),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [{\"name\": \"b\", \"algorithm\": \"token-bucket\", \"capacity\": 5, "
                        + "\"refillPerSecond\": 0.5}]}", true),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [{\"name\": \"b\", \"algorithm\": \"token-bucket\", \"capacity\": 5, "
                        + "\"refillPerSecond\": 0.0000005}]}", false),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [{\"name\": \"b\", \"algorithm\": \"token-bucket\", \"capacity\": 5}]}", false),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [{\"name\": \"b\", \"algorithm\": \"leaky-bucket\", \"capacity\": 5, "
                        + "\"refillPerSecond\": 1, \"refillTokens\": 1, \"refillPeriod\": \"PT1S\"}]}", false),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [{\"name\": \"b\", \"algorithm\": \"leaky-bucket\", \"capacity\": 5, "
                        + "\"limit\": 5, \"refillPerSecond\": 1}]}", false),
                Arguments.of("{\"id\": \"p\", \"rateLimits\": [{\"name\": \"b\", \"algorithm\": \"leaky-bucket\", \"capacity\": 5, "
                        + "\"refillTokens\": 5, \"refillPeriod\": \"PT1M\"}]}", true));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("plansAtTheBounds")
    void thePlanSchemaAcceptsWhatThePlanParserAccepts(String json, boolean accepted) {
        boolean parsed;
        try {
            new PlanParser().parsePlan("p", bytes(json));
            parsed = true;
        } catch (InvalidPlanException e) {
            parsed = false;
        }
        assertEquals(accepted, parsed, "the parser");
        assertEquals(accepted, errors(PLAN, json).isEmpty(), () -> "the schema: " + errors(PLAN, json));
    }

    /** The README's examples: one per schema, in the section that links it, each a record of the run. */
    @Test
    void theSchemasReadmeShowsARealRecordOfEverySchema() throws IOException {
        String readme = Files.readString(SCHEMAS.resolve("README.md"));
        Pattern schemaLink = Pattern.compile("\\]\\(([a-z-]+\\.schema\\.json)\\)");
        Pattern example = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL);
        Set<String> shown = new TreeSet<>();
        for (String section : readme.split("\n## ")) {
            Matcher link = schemaLink.matcher(section);
            Matcher json = example.matcher(section);
            if (link.find() && json.find()) {
                String schema = link.group(1);
                assertValid(schema, json.group(1));
                JsonNode shownRecord = tree(json.group(1));
                assertTrue(schemaOfTopic().entrySet().stream().filter(topic -> schema.equals(topic.getValue()))
                        .flatMap(topic -> records(topic.getKey()).stream())
                        .anyMatch(record -> tree(record).equals(shownRecord)), () -> "not a record of the run: " + shownRecord);
                shown.add(schema);
            }
        }
        Set<String> all = new TreeSet<>(schemaOfTopic().values().stream().filter(schema -> schema != null && !schema.contains("#"))
                .toList());
        assertEquals(all, shown);
    }

    private static List<String> records(String topic) {
        return RECORDS.getOrDefault(topic, List.of());
    }

    private static void assertAllValid(String schema, List<String> records) {
        assertFalse(records.isEmpty(), "no records to check against " + schema);
        records.forEach(json -> assertValid(schema, json));
    }

    private static void assertValid(String schema, String json) {
        List<String> errors = errors(schema, json);
        if (!errors.isEmpty()) {
            fail(schema + " rejects " + json + ":\n  " + String.join("\n  ", errors));
        }
    }

    private static void assertInvalid(String schema, String json) {
        assertFalse(errors(schema, json).isEmpty(), () -> schema + " accepts " + json);
    }

    private static List<String> errors(String schema, String json) {
        Schema compiled = REGISTRY.getSchema(SchemaLocation.of(ID_PREFIX + schema));
        return compiled.validate(json, InputFormat.JSON).stream().map(Object::toString).toList();
    }

    /** The values a schema's top-level property may take. */
    private static List<String> enumOf(String schema, String property) {
        JsonNode values = tree(schemaTexts().get(ID_PREFIX + schema)).path("properties").path(property).path("enum");
        List<String> names = new ArrayList<>();
        values.forEach(value -> names.add(value.textValue()));
        return names;
    }

    /** The schema files by their {@code $id}, which each must be {@link #ID_PREFIX} and the file's name. */
    private static Map<String, String> schemaTexts() {
        Map<String, String> texts = new HashMap<>();
        try (Stream<Path> files = Files.list(SCHEMAS)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".schema.json")).toList()) {
                String text = Files.readString(file);
                String id = ID_PREFIX + file.getFileName();
                assertEquals(id, tree(text).path("$id").textValue(), file + ": $id");
                texts.put(id, text);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return texts;
    }

    private static String field(String json, String name) {
        JsonNode value = tree(json).get(name);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String quoted(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Sends the run's inputs through the driver, keeping each value as published. */
    private record Publisher(EnforcerDriver enforcer) {

        void plan(String id, String json) {
            keep(topics.plans().name(), json);
            enforcer.plan(id, json);
        }

        void assign(String apiKey, String plan) {
            String json = "{\"plan\": \"" + plan + "\"}";
            keep(topics.apiKeys().name(), json);
            enforcer.rawAssignment(apiKey, json);
        }

        void request(String apiKey, String json, Instant time) {
            keep(topics.requests().name(), json);
            enforcer.sendRaw(apiKey, json, time);
        }

        void request(String apiKey, String json, Headers headers, Instant time) {
            keep(topics.requests().name(), json);
            enforcer.sendWithHeaders(apiKey, json, headers, time);
        }

        void refusedRequest(String apiKey, String json, Instant time) {
            REFUSED_INPUTS.computeIfAbsent(topics.requests().name(), topic -> new ArrayList<>()).add(json);
            enforcer.sendRaw(apiKey, json, time);
        }

        void command(String apiKey, String json, Instant time) {
            keep(topics.commands().name(), json);
            enforcer.command(apiKey, json, time);
        }

        private static void keep(String topic, String json) {
            RECORDS.computeIfAbsent(topic, name -> new ArrayList<>()).add(json);
        }
    }
}

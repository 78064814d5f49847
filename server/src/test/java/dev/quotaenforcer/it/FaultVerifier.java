package dev.quotaenforcer.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The fault suite's judge, independent of the production classes: it reads the requests topic and
 * every output read_committed as plain JSON and checks them against {@link QuotaModel}. Every request
 * has exactly one committed decision and no decision lacks a request; each key's decisions, in the
 * order they were committed, are what the model decides in that order; the latest usage figure per
 * key and hour and the quota-exceeded events are the model's; nothing was dead-lettered; and, once
 * the application is stopped, none of its transactions is left open.
 */
final class FaultVerifier {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long HOUR_MS = 3_600_000;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Mismatches listed in full in a failure message; the rest are counted. */
    private static final int SHOWN = 12;

    private final TestCluster cluster;
    private final String applicationId;
    private final Map<String, QuotaModel.Plan> planOfKey;
    private final Map<TopicPartition, Long> from;

    private FaultVerifier(TestCluster cluster, String applicationId, Map<String, QuotaModel.Plan> planOfKey,
                          Map<TopicPartition, Long> from) {
        this.cluster = cluster;
        this.applicationId = applicationId;
        this.planOfKey = planOfKey;
        this.from = from;
    }

    /** Judges the application's output from the beginning of the output topics. */
    static FaultVerifier of(TestCluster cluster, String applicationId, Map<String, QuotaModel.Plan> planOfKey) {
        return new FaultVerifier(cluster, applicationId, planOfKey, Map.of());
    }

    /** Judges only what is written to the output topics after now: another application over the same input. */
    FaultVerifier forNextApplication(String nextApplicationId) {
        Map<TopicPartition, Long> ends = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(false)) {
            for (String topic : outputs()) {
                ends.putAll(consumer.endOffsets(partitions(consumer, topic), WAIT));
            }
        }
        return new FaultVerifier(cluster, nextApplicationId, planOfKey, ends);
    }

    /** Each key's committed decisions in the order they were committed, as "request allowed reason remaining". */
    Map<String, List<String>> decisionsByKey() {
        Map<String, List<String>> byKey = new TreeMap<>();
        for (JsonNode decision : read(cluster.topics().decisions().name(), from)) {
            byKey.computeIfAbsent(decision.path("apiKey").asText(), k -> new ArrayList<>()).add(decision.path("requestId")
                    .asText() + " " + decision.path("allowed").asBoolean() + " " + decision.path("reason").asText() + " "
                    + decision.path("remaining").asLong());
        }
        return byKey;
    }

    /** What the output holds now, against the input and the model. */
    Result check() {
        Map<String, JsonNode> inputs = new LinkedHashMap<>();
        List<String> duplicateInputs = new ArrayList<>();
        for (JsonNode request : read(cluster.topics().requests().name(), Map.of())) {
            if (inputs.put(request.path("requestId").asText(), request) != null) {
                duplicateInputs.add(request.path("requestId").asText());
            }
        }
        List<JsonNode> decisions = read(cluster.topics().decisions().name(), from);
        Result result = new Result(inputs.size(), decisions.size());
        result.problems("requests on the input topic more than once (producer duplicates)", duplicateInputs);

        Map<String, Integer> decisionsPerId = new HashMap<>();
        Map<String, List<JsonNode>> byKey = new TreeMap<>();
        List<String> unknown = new ArrayList<>();
        for (JsonNode decision : decisions) {
            String id = decision.path("requestId").asText();
            decisionsPerId.merge(id, 1, Integer::sum);
            if (!inputs.containsKey(id)) {
                unknown.add(id);
                continue;
            }
            byKey.computeIfAbsent(decision.path("apiKey").asText(), k -> new ArrayList<>()).add(decision);
        }
        result.problems("decisions of no request", unknown);
        result.problems("requests decided more than once", decisionsPerId.entrySet().stream()
                .filter(e -> e.getValue() > 1).map(e -> e.getKey() + " x" + e.getValue()).toList());
        List<String> undecided = inputs.keySet().stream().filter(id -> !decisionsPerId.containsKey(id)).toList();
        result.undecided = undecided.size();
        result.problems("requests without a committed decision", undecided);

        Map<String, JsonNode> expectedUsage = new TreeMap<>();
        Set<String> expectedExceeded = new TreeSet<>();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, List<JsonNode>> entry : byKey.entrySet()) {
            String apiKey = entry.getKey();
            QuotaModel.Plan plan = planOfKey.get(apiKey);
            QuotaModel model = new QuotaModel(plan);
            int index = 0;
            for (JsonNode decision : entry.getValue()) {
                JsonNode request = inputs.get(decision.path("requestId").asText());
                long cost = request.path("cost").asLong();
                QuotaModel.Verdict verdict = model.decide(request.path("timestamp").asLong(), cost);
                String difference = difference(decision, verdict, plan);
                if (difference != null && wrong.size() < 1000) {
                    wrong.add(apiKey + " decision #" + index + " (" + decision.path("requestId").asText() + ", cost " + cost
                            + ", event time " + request.path("timestamp").asLong() + "): " + difference);
                }
                verdict.exceededPolicies().forEach(policy -> expectedExceeded.add(apiKey + " " + policy + " "
                        + decision.path("requestId").asText()));
                countUsage(expectedUsage, apiKey, plan, verdict, cost);
                if (verdict.allowed()) {
                    result.allowed++;
                }
                index++;
            }
        }
        result.problems("decisions that differ from the model, in the order each key's were committed", wrong);

        Map<String, JsonNode> latestUsage = new TreeMap<>();
        for (JsonNode usage : read(cluster.topics().usage().name(), from)) {
            latestUsage.put(usage.path("apiKey").asText() + " " + usage.path("hour").asText(), usage);
        }
        List<String> usageWrong = new ArrayList<>();
        for (String keyHour : union(expectedUsage.keySet(), latestUsage.keySet())) {
            JsonNode expected = expectedUsage.get(keyHour);
            JsonNode actual = latestUsage.get(keyHour);
            if (expected == null || !usageFigures(expected).equals(usageFigures(actual))) {
                usageWrong.add(keyHour + ": model " + (expected == null ? "none" : usageFigures(expected)) + ", latest usage "
                        + (actual == null ? "none" : usageFigures(actual)));
            }
        }
        result.usageMatches = usageWrong.isEmpty();
        result.problems("usage figures (latest per key and hour) that differ from the model", usageWrong);

        List<String> exceeded = new ArrayList<>();
        for (JsonNode event : read(cluster.topics().exceeded().name(), from)) {
            exceeded.add(event.path("apiKey").asText() + " " + event.path("policy").asText() + " "
                    + event.path("requestId").asText());
        }
        result.exceeded = exceeded.size();
        result.problems("quota-exceeded events the model has not", exceeded.stream()
                .filter(e -> !expectedExceeded.contains(e)).toList());
        result.problems("quota-exceeded events the model has, missing", expectedExceeded.stream()
                .filter(e -> !exceeded.contains(e)).toList());
        result.problems("quota-exceeded events written more than once", exceeded.stream()
                .collect(Collectors.groupingBy(e -> e, Collectors.counting())).entrySet().stream()
                .filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList());

        List<String> deadLetters = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(true)) {
            readRaw(consumer, cluster.topics().deadLetter().name(), from).forEach(record -> deadLetters.add(
                    new String(record.value(), StandardCharsets.UTF_8)));
        }
        result.problems("dead letters", deadLetters);
        return result;
    }

    /**
     * Waits until every request has a committed decision and the usage figures caught up (the enforcer
     * writes them once per usage interval), and returns what the output holds then.
     */
    Result awaitSettled(Duration wait) throws InterruptedException {
        Result[] last = new Result[1];
        try {
            TestCluster.awaitCondition("every request decided and the usage caught up", () -> {
                last[0] = check();
                return last[0].undecided == 0 && last[0].usageMatches;
            }, wait);
        } catch (AssertionError e) {
            // Not settled: the caller's assertExact says how far from it.
        }
        return last[0];
    }

    /**
     * Once every instance is stopped: waits until the application's group is empty, then checks that
     * no partition of an output holds an open transaction (its last stable offset is its end) and that
     * the transaction coordinator has none of the application's transactions open.
     */
    List<String> openTransactions() throws InterruptedException {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            TestCluster.awaitCondition("the group " + applicationId + " empty", () -> groupEmpty(admin),
                    Duration.ofSeconds(120));
            List<String> open = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> committed = consumer(true);
                 KafkaConsumer<byte[], byte[]> uncommitted = consumer(false)) {
                for (String topic : outputs()) {
                    List<TopicPartition> partitions = partitions(committed, topic);
                    Map<TopicPartition, Long> stable = committed.endOffsets(partitions, WAIT);
                    Map<TopicPartition, Long> ends = uncommitted.endOffsets(partitions, WAIT);
                    partitions.stream().filter(p -> !stable.get(p).equals(ends.get(p)))
                            .forEach(p -> open.add(p + ": last stable offset " + stable.get(p) + " < end " + ends.get(p)));
                }
            }
            for (TransactionListing listing : admin.listTransactions().all().get(30, TimeUnit.SECONDS)) {
                if (listing.transactionalId().startsWith(applicationId + "-") && (listing.state() == TransactionState.ONGOING
                        || listing.state() == TransactionState.PREPARE_COMMIT || listing.state() == TransactionState.PREPARE_ABORT)) {
                    open.add(listing.transactionalId() + " " + listing.state());
                }
            }
            return open;
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("cannot list transactions: " + e, e);
        }
    }

    private boolean groupEmpty(Admin admin) {
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(applicationId)).all()
                    .get(30, TimeUnit.SECONDS).get(applicationId);
            return group.groupState() == GroupState.EMPTY || group.groupState() == GroupState.DEAD;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The first difference between a committed decision and the model's verdict, or null. */
    private static String difference(JsonNode decision, QuotaModel.Verdict verdict, QuotaModel.Plan plan) {
        List<String> differences = new ArrayList<>();
        compare(differences, "allowed", verdict.allowed(), decision.path("allowed").asBoolean());
        compare(differences, "reason", verdict.reason(), decision.path("reason").asText());
        compare(differences, "policy", verdict.policy(), decision.path("policy").asText());
        compare(differences, "remaining", verdict.remaining(), decision.path("remaining").asLong());
        compare(differences, "retryAfterSeconds", verdict.retryAfterSeconds(), decision.path("retryAfterSeconds").asLong());
        compare(differences, "plan", plan.id(), decision.path("plan").asText());
        compare(differences, "eventTime", Instant.ofEpochMilli(verdict.timeMs()).toString(),
                Instant.parse(decision.path("eventTime").asText()).toString());
        return differences.isEmpty() ? null : String.join(", ", differences);
    }

    private static void compare(List<String> differences, String field, Object expected, Object actual) {
        if (!expected.equals(actual)) {
            differences.add(field + " " + actual + " where the model says " + expected);
        }
    }

    private static void countUsage(Map<String, JsonNode> usage, String apiKey, QuotaModel.Plan plan,
                                   QuotaModel.Verdict verdict, long cost) {
        Instant hour = Instant.ofEpochMilli(Math.floorDiv(verdict.timeMs(), HOUR_MS) * HOUR_MS);
        String keyHour = apiKey + " " + hour;
        ObjectNode figure = (ObjectNode) usage.computeIfAbsent(keyHour, k -> JSON.createObjectNode().put("plan", plan.id())
                        .put("quota", plan.quotaLimit()).put("allowed", 0).put("denied", 0).put("allowedCost", 0)
                        .put("deniedCost", 0).put("quotaDenied", 0));
        String count = verdict.allowed() ? "allowed" : "denied";
        figure.put(count, figure.get(count).asLong() + 1);
        figure.put(count + "Cost", figure.get(count + "Cost").asLong() + cost);
        if (verdict.reason().equals("QUOTA_EXCEEDED")) {
            figure.put("quotaDenied", figure.get("quotaDenied").asLong() + 1);
        }
    }

    private static String usageFigures(JsonNode usage) {
        if (usage == null) {
            return "none";
        }
        return usage.path("plan").asText() + " quota " + usage.path("quota").asLong() + ": allowed "
                + usage.path("allowed").asLong() + " (cost " + usage.path("allowedCost").asLong() + "), denied "
                + usage.path("denied").asLong() + " (cost " + usage.path("deniedCost").asLong() + ", quota "
                + usage.path("quotaDenied").asLong() + ")";
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }

    private List<String> outputs() {
        return List.of(cluster.topics().decisions().name(), cluster.topics().exceeded().name(),
                cluster.topics().usage().name(), cluster.topics().deadLetter().name());
    }

    /** Every committed record of the topic from {@code from} (or its beginning) to its end, in partition order. */
    private List<JsonNode> read(String topic, Map<TopicPartition, Long> from) {
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(true)) {
            List<JsonNode> values = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> record : readRaw(consumer, topic, from)) {
                try {
                    values.add(JSON.readTree(record.value()));
                } catch (IOException e) {
                    throw new UncheckedIOException("unreadable record on " + topic + " at " + record.partition() + "@"
                            + record.offset(), e);
                }
            }
            return values;
        }
    }

    private static List<ConsumerRecord<byte[], byte[]>> readRaw(KafkaConsumer<byte[], byte[]> consumer, String topic,
                                                               Map<TopicPartition, Long> from) {
        List<TopicPartition> partitions = partitions(consumer, topic);
        consumer.assign(partitions);
        for (TopicPartition partition : partitions) {
            consumer.seek(partition, from.getOrDefault(partition, 0L));
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, WAIT);
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> byPartition = new TreeMap<>(
                (a, b) -> Integer.compare(a.partition(), b.partition()));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (partitions.stream().anyMatch(p -> consumer.position(p, WAIT) < ends.get(p))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("could not read " + topic + " to " + ends + " within " + WAIT);
            }
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                byPartition.computeIfAbsent(new TopicPartition(topic, record.partition()), p -> new ArrayList<>()).add(record);
            }
        }
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
        byPartition.values().forEach(all::addAll);
        return all;
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        return consumer.partitionsFor(topic, WAIT).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private KafkaConsumer<byte[], byte[]> consumer(boolean committedOnly) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, committedOnly ? "read_committed" : "read_uncommitted");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        return new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** What the verifier found: figures, and every kind of problem with its first instances. */
    static final class Result {
        final int inputs;
        final int decisions;
        int allowed;
        int exceeded;
        int undecided;
        boolean usageMatches;
        private final Map<String, List<String>> problems = new LinkedHashMap<>();

        Result(int inputs, int decisions) {
            this.inputs = inputs;
            this.decisions = decisions;
        }

        private void problems(String kind, List<String> instances) {
            if (!instances.isEmpty()) {
                problems.put(kind, instances);
            }
        }

        boolean exact() {
            return problems.isEmpty();
        }

        /** Each kind of problem with how many, and the first of them. */
        String problems() {
            StringBuilder text = new StringBuilder();
            problems.forEach((kind, instances) -> {
                text.append("\n  ").append(instances.size()).append(" ").append(kind).append(":");
                instances.stream().limit(SHOWN).forEach(instance -> text.append("\n    ").append(instance));
            });
            return text.toString();
        }

        String figures() {
            return inputs + " requests, " + decisions + " committed decisions (" + allowed + " allowed), " + exceeded
                    + " quota-exceeded events";
        }

        /** Fails, with the figures and every problem found, unless the output is exact. */
        void assertExact(String what) {
            if (!exact()) {
                throw new AssertionError(what + ": " + figures() + problems());
            }
        }
    }
}

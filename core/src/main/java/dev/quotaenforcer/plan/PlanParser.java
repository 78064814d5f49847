package dev.quotaenforcer.plan;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.RefillRate;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Reads plan JSON and key assignments, accepting only what the engine can enforce exactly. Every
 * rejection names the field and the offending value, so an operator can fix the plan from the
 * dead-letter record alone.
 */
public final class PlanParser {

    /** Largest limit or capacity; keeps every counter product inside a long. */
    public static final long MAX_LIMIT = 1_000_000_000L;
    /** The log keeps one entry per admitted request, so its limit bounds the memory of every key. */
    public static final long MAX_LOG_LIMIT = 1_000;
    public static final Duration MAX_WINDOW = Duration.ofDays(31);
    /** Largest plan or assignment JSON accepted: a valid plan at every bound takes a few kilobytes. */
    public static final int MAX_JSON_BYTES = 16 * 1024;
    /** Most rate limits a plan may have: every decision carries a header field per policy. */
    public static final int MAX_RATE_LIMITS = 15;
    /** Refill rates are exact decimals with at most this many fractional digits. */
    public static final int MAX_RATE_SCALE = 6;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Set<String> PLAN_FIELDS = Set.of("id", "rateLimits", "quota");
    private static final Set<String> POLICY_FIELDS =
            Set.of("name", "algorithm", "limit", "window", "capacity", "refillPerSecond", "refillTokens", "refillPeriod");
    private static final Set<String> ASSIGNMENT_FIELDS = Set.of("plan");
    private static final String DEFAULT_QUOTA_NAME = "quota";

    private final ObjectMapper mapper = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /**
     * Parses and validates one plan.
     *
     * @param recordKey the plan id the record is keyed by, or null when it has no key
     */
    public Plan parsePlan(String recordKey, byte[] json) throws InvalidPlanException {
        ObjectNode root = object(readJson(json), "");
        requireKnownFields(root, "", PLAN_FIELDS);
        String id = name(root, "id");
        if (recordKey != null && !recordKey.equals(id)) {
            throw new InvalidPlanException("id", quote(id) + " differs from the record key " + quote(recordKey));
        }
        List<PlanPolicy> policies = new ArrayList<>();
        JsonNode rateLimits = root.get("rateLimits");
        if (rateLimits != null && !rateLimits.isNull()) {
            if (!rateLimits.isArray()) {
                throw new InvalidPlanException("rateLimits", "must be a list of policies, got " + rateLimits);
            }
            if (rateLimits.size() > MAX_RATE_LIMITS) {
                throw new InvalidPlanException("rateLimits", rateLimits.size() + " policies; a plan has at most "
                        + MAX_RATE_LIMITS + " rate limits");
            }
            for (int i = 0; i < rateLimits.size(); i++) {
                LimitPolicy limit = policy(object(rateLimits.get(i), "rateLimits[" + i + "]"), "rateLimits[" + i + "]", null);
                policies.add(new PlanPolicy(limit, PolicyKind.RATE));
            }
        }
        JsonNode quota = root.get("quota");
        if (quota != null && !quota.isNull()) {
            ObjectNode node = object(quota, "quota");
            Algorithm algorithm = algorithm(node, "quota", Algorithm.FIXED_WINDOW);
            if (algorithm != Algorithm.FIXED_WINDOW && algorithm != Algorithm.SLIDING_WINDOW_COUNTER) {
                throw new InvalidPlanException("quota.algorithm", quote(algorithm.id())
                        + " is not a quota algorithm; use fixed-window or sliding-window-counter");
            }
            policies.add(new PlanPolicy(policy(node, "quota", Algorithm.FIXED_WINDOW), PolicyKind.QUOTA));
        }
        if (policies.isEmpty()) {
            throw new InvalidPlanException("rateLimits", "a plan needs at least one rate limit or a quota");
        }
        requireDistinct(policies);
        return new Plan(id, policies);
    }

    /** Parses a key assignment {@code {"plan": "pro"}} and returns the plan id. */
    /** Whether {@code id} is a name a plan can have: what a key assignment in the catalog must hold. */
    public static boolean isPlanId(String id) {
        return id != null && NAME.matcher(id).matches();
    }

    public String parseAssignment(byte[] json) throws InvalidPlanException {
        ObjectNode root = object(readJson(json), "");
        requireKnownFields(root, "", ASSIGNMENT_FIELDS);
        return name(root, "plan");
    }

    private JsonNode readJson(byte[] json) throws InvalidPlanException {
        if (json.length > MAX_JSON_BYTES) {
            // Written as read to the catalog topics, whose records must stay small.
            throw new InvalidPlanException("", json.length + " bytes; a plan or assignment has at most " + MAX_JSON_BYTES);
        }
        try {
            return mapper.readTree(json);
        } catch (JacksonException e) {
            throw new InvalidPlanException("", "not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidPlanException("", "unreadable: " + e.getMessage());
        }
    }

    private LimitPolicy policy(ObjectNode node, String path, Algorithm defaultAlgorithm) throws InvalidPlanException {
        requireKnownFields(node, path, POLICY_FIELDS);
        String name = node.has("name") || defaultAlgorithm == null ? name(node, path, "name") : DEFAULT_QUOTA_NAME;
        Algorithm algorithm = algorithm(node, path, defaultAlgorithm);
        if (algorithm.windowed()) {
            rejectPresent(node, path, algorithm, "capacity", "refillPerSecond", "refillTokens", "refillPeriod");
            long maxLimit = algorithm == Algorithm.SLIDING_WINDOW_LOG ? MAX_LOG_LIMIT : MAX_LIMIT;
            long limit = positiveInteger(node, path, "limit", maxLimit);
            Duration window = window(node, path, "window", defaultAlgorithm != null ? Duration.ofHours(1) : null);
            return LimitPolicy.window(name, algorithm, limit, window);
        }
        rejectPresent(node, path, algorithm, "limit", "window");
        long capacity = positiveInteger(node, path, "capacity", MAX_LIMIT);
        return LimitPolicy.bucket(name, algorithm, capacity, refill(node, path));
    }

    private static Algorithm algorithm(ObjectNode node, String path, Algorithm defaultAlgorithm) throws InvalidPlanException {
        JsonNode value = node.get("algorithm");
        if (value == null && defaultAlgorithm != null) {
            return defaultAlgorithm;
        }
        String field = path + ".algorithm";
        if (value == null || !value.isTextual()) {
            throw new InvalidPlanException(field, "must name an algorithm (" + algorithmIds() + "), got " + value);
        }
        return Algorithm.fromId(value.textValue()).orElseThrow(() -> new InvalidPlanException(field,
                quote(value.textValue()) + " is not an algorithm; use one of " + algorithmIds()));
    }

    private static RefillRate refill(ObjectNode node, String path) throws InvalidPlanException {
        JsonNode perSecond = node.get("refillPerSecond");
        if (perSecond != null) {
            if (node.has("refillTokens") || node.has("refillPeriod")) {
                throw new InvalidPlanException(path + ".refillPerSecond",
                        "give either refillPerSecond or refillTokens with refillPeriod, not both");
            }
            String field = path + ".refillPerSecond";
            if (!perSecond.isNumber()) {
                throw new InvalidPlanException(field, "must be a positive number, got " + perSecond);
            }
            BigDecimal rate = perSecond.decimalValue().stripTrailingZeros();
            if (rate.signum() <= 0 || rate.compareTo(BigDecimal.valueOf(MAX_LIMIT)) > 0 || rate.scale() > MAX_RATE_SCALE) {
                throw new InvalidPlanException(field, perSecond + " must be a positive number up to " + MAX_LIMIT
                        + " with at most " + MAX_RATE_SCALE + " decimals");
            }
            return rate(field, perSecond.toString(), () -> RefillRate.perSecond(rate));
        }
        if (!node.has("refillTokens") && !node.has("refillPeriod")) {
            throw new InvalidPlanException(path + ".refillPerSecond",
                    "is missing; give refillPerSecond, or refillTokens with refillPeriod");
        }
        long tokens = positiveInteger(node, path, "refillTokens", MAX_LIMIT);
        Duration period = window(node, path, "refillPeriod", null);
        return rate(path + ".refillPeriod", tokens + " per " + node.get("refillPeriod"), () -> RefillRate.of(tokens, period));
    }

    private static RefillRate rate(String field, String written, Supplier<RefillRate> rate)
            throws InvalidPlanException {
        try {
            return rate.get();
        } catch (IllegalArgumentException e) {
            // The rate is kept as an exact fraction of tokens per period; the reduced period must fit the state layout.
            throw new InvalidPlanException(field, written + " is too fine a rate: reduced to lowest terms, its period must be at most "
                    + RefillRate.MAX_PERIOD_MS / 1000 + " seconds (about 11.6 days)");
        }
    }

    private static long positiveInteger(ObjectNode node, String path, String name, long max) throws InvalidPlanException {
        JsonNode value = node.get(name);
        String field = path + "." + name;
        if (value == null) {
            throw new InvalidPlanException(field, "is missing");
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() <= 0 || value.longValue() > max) {
            throw new InvalidPlanException(field, value + " must be a whole number from 1 to " + max);
        }
        return value.longValue();
    }

    private static Duration window(ObjectNode node, String path, String name, Duration defaultWindow)
            throws InvalidPlanException {
        JsonNode value = node.get(name);
        String field = path + "." + name;
        if (value == null && defaultWindow != null) {
            return defaultWindow;
        }
        if (value == null) {
            throw new InvalidPlanException(field, "is missing; give an ISO-8601 duration such as \"PT1M\"");
        }
        Duration window;
        try {
            window = Duration.parse(value.asText());
        } catch (DateTimeParseException e) {
            throw new InvalidPlanException(field, value + " is not an ISO-8601 duration such as \"PT1M\"");
        }
        if (!value.isTextual() || window.compareTo(Duration.ofSeconds(1)) < 0 || window.compareTo(MAX_WINDOW) > 0
                || window.getNano() != 0) {
            throw new InvalidPlanException(field, value + " must be a whole number of seconds from PT1S to "
                    + MAX_WINDOW);
        }
        return window;
    }

    private static String name(ObjectNode node, String field) throws InvalidPlanException {
        return name(node, "", field);
    }

    private static String name(ObjectNode node, String path, String name) throws InvalidPlanException {
        JsonNode value = node.get(name);
        String field = path.isEmpty() ? name : path + "." + name;
        if (value == null || !value.isTextual() || !NAME.matcher(value.textValue()).matches()) {
            throw new InvalidPlanException(field, (value == null ? "is missing" : value + " is not a valid name")
                    + "; use 1 to 64 letters, digits, '.', '_' or '-'");
        }
        return value.textValue();
    }

    private static ObjectNode object(JsonNode node, String field) throws InvalidPlanException {
        if (node instanceof ObjectNode object) {
            return object;
        }
        throw new InvalidPlanException(field, "must be a JSON object, got " + node);
    }

    private static void requireKnownFields(ObjectNode node, String path, Set<String> known) throws InvalidPlanException {
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!known.contains(name)) {
                throw new InvalidPlanException(path.isEmpty() ? name : path + "." + name,
                        "is not a known field; expected one of " + known.stream().sorted().toList());
            }
        }
    }

    private static void rejectPresent(ObjectNode node, String path, Algorithm algorithm, String... fields)
            throws InvalidPlanException {
        for (String name : fields) {
            if (node.has(name)) {
                throw new InvalidPlanException(path + "." + name, "does not apply to " + algorithm.id()
                        + (algorithm.windowed() ? "; it takes limit and window" : "; it takes capacity and refillPerSecond"));
            }
        }
    }

    private static void requireDistinct(List<PlanPolicy> policies) throws InvalidPlanException {
        Map<String, PlanPolicy> byName = new HashMap<>();
        Map<Integer, PlanPolicy> byTag = new HashMap<>();
        for (int i = 0; i < policies.size(); i++) {
            PlanPolicy policy = policies.get(i);
            String field = policy.kind() == PolicyKind.QUOTA ? "quota.name" : "rateLimits[" + i + "].name";
            PlanPolicy sameName = byName.putIfAbsent(policy.name(), policy);
            if (sameName != null) {
                throw new InvalidPlanException(field, quote(policy.name())
                        + " names two policies; policy names must be unique within a plan");
            }
            PlanPolicy sameTag = byTag.putIfAbsent(policy.tag(), policy);
            if (sameTag != null) {
                // Counted state is stored under the tag; two policies sharing one would share counts.
                throw new InvalidPlanException(field, quote(policy.name()) + " and "
                        + quote(sameTag.name()) + " collide in the state layout; rename one of them");
            }
        }
    }

    private static String algorithmIds() {
        List<String> ids = new ArrayList<>();
        for (Algorithm algorithm : Algorithm.values()) {
            ids.add(algorithm.id());
        }
        return String.join(", ", ids);
    }

    private static String quote(String value) {
        return '"' + value + '"';
    }
}

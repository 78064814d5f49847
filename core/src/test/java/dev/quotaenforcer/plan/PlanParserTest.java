package dev.quotaenforcer.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.RefillRate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Plan and key-assignment parsing: the accepted fixtures, and the field and value named for each rejected one. */
class PlanParserTest {

    private static final String INVALID = "/plans/invalid/";
    private static final String VALID = "/plans/valid/";

    private final PlanParser parser = new PlanParser();

    /*
     * One row per fixture under plans/invalid: the file, the field path the rejection must name, and
     * a fragment the message must contain. The fragment is the offending value as written in the file;
     * where nothing is written (a missing field, an empty list, a conflicting pair) it is the problem.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(textBlock = """
            window-zero.json,                   rateLimits[0].window,          PT0S
            window-negative.json,               rateLimits[0].window,          -PT1M
            window-fractional-seconds.json,     rateLimits[0].window,          PT1.5S
            window-below-one-second.json,       rateLimits[0].window,          PT0.5S
            window-above-31-days.json,          rateLimits[0].window,          P32D
            window-not-iso.json,                rateLimits[0].window,          '"1m"'
            window-number.json,                 rateLimits[0].window,          60
            window-missing.json,                rateLimits[0].window,          is missing
            unknown-algorithm.json,             rateLimits[0].algorithm,       gcra
            algorithm-missing.json,             rateLimits[0].algorithm,       must name an algorithm
            algorithm-not-text.json,            rateLimits[0].algorithm,       got 7
            limit-not-integer.json,             rateLimits[0].limit,           10.5
            limit-string.json,                  rateLimits[0].limit,           '"100"'
            limit-negative.json,                rateLimits[0].limit,           -5
            limit-zero.json,                    rateLimits[0].limit,           0 must be
            limit-above-max.json,               rateLimits[0].limit,           1000000001
            limit-beyond-long.json,             rateLimits[0].limit,           99999999999999999999
            limit-missing.json,                 rateLimits[0].limit,           is missing
            log-limit-above-cap.json,           rateLimits[0].limit,           1001
            duplicate-policy-name.json,         rateLimits[1].name,            per-minute
            duplicate-name-rate-and-quota.json, quota.name,                    hourly
            tag-collision.json,                 rateLimits[1].name,            BB
            quota-token-bucket.json,            quota.algorithm,               token-bucket
            quota-leaky-bucket.json,            quota.algorithm,               leaky-bucket
            quota-sliding-window-log.json,      quota.algorithm,               sliding-window-log
            quota-not-object.json,              quota,                         1000
            quota-limit-missing.json,           quota.limit,                   is missing
            quota-with-capacity.json,           quota.capacity,                fixed-window
            unknown-field.json,                 tier,                          tier
            unknown-policy-field.json,          rateLimits[0].burst,           burst
            bucket-with-window.json,            rateLimits[0].window,          token-bucket
            bucket-with-limit.json,             rateLimits[0].limit,           leaky-bucket
            window-with-capacity.json,          rateLimits[0].capacity,        fixed-window
            window-with-refill.json,            rateLimits[0].refillPerSecond, sliding-window-counter
            refill-too-many-decimals.json,      rateLimits[0].refillPerSecond, 0.1234567
            refill-zero.json,                   rateLimits[0].refillPerSecond, 0 must be
            refill-negative.json,               rateLimits[0].refillPerSecond, -2
            refill-string.json,                 rateLimits[0].refillPerSecond, '"2"'
            refill-above-max.json,              rateLimits[0].refillPerSecond, 1000000001
            both-refill-forms.json,             rateLimits[0].refillPerSecond, not both
            refill-missing.json,                rateLimits[0].refillPerSecond, is missing
            refill-tokens-without-period.json,  rateLimits[0].refillPeriod,    is missing
            refill-period-without-tokens.json,  rateLimits[0].refillTokens,    is missing
            refill-period-fractional.json,      rateLimits[0].refillPeriod,    PT2.5S
            capacity-missing.json,              rateLimits[0].capacity,        is missing
            capacity-not-integer.json,          rateLimits[0].capacity,        2.5
            missing-id.json,                    id,                            is missing
            bad-id-characters.json,             id,                            free plan!
            id-too-long.json,                   id,                            a123456789b123456789c123456789d123456789e123456789f123456789g1234
            id-number.json,                     id,                            42
            no-policies.json,                   rateLimits,                    at least one
            empty-rate-limits.json,             rateLimits,                    at least one
            rate-limits-not-list.json,          rateLimits,                    per-minute
            rate-limit-not-object.json,         rateLimits[0],                 per-minute
            policy-name-missing.json,           rateLimits[0].name,            is missing
            policy-bad-name.json,               rateLimits[0].name,            per minute
            not-json.json,                      '',                            free
            not-an-object.json,                 '',                            free
            empty.json,                         '',                            JSON object
            refill-period-too-fine.json,        rateLimits[0].refillPeriod,    P30D
            duplicate-identical-policies.json,  rateLimits[1].name,            per-minute
            quota-token-bucket-with-limit.json, quota.algorithm,               token-bucket
            """)
    void rejectsInvalidPlanNamingFieldAndValue(String file, String field, String valueFragment) {
        InvalidPlanException e = assertThrows(InvalidPlanException.class, () -> parser.parsePlan(null, fixture(INVALID + file)));

        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(valueFragment), () -> "message lacks '" + valueFragment + "': " + e.getMessage());
        String expectedPrefix = field.isEmpty() ? "" : field + ": ";
        assertTrue(e.getMessage().startsWith(expectedPrefix), e.getMessage());
    }

    @Test
    void everyInvalidFixtureIsListedInTheParameterizedTest() throws Exception {
        Set<String> listed = new TreeSet<>();
        CsvSource source = PlanParserTest.class
                .getDeclaredMethod("rejectsInvalidPlanNamingFieldAndValue", String.class, String.class, String.class)
                .getAnnotation(CsvSource.class);
        for (String line : source.textBlock().split("\n")) {
            if (!line.isBlank()) {
                listed.add(line.substring(0, line.indexOf(',')).trim());
            }
        }

        assertEquals(filesIn(INVALID), listed);
    }

    @Test
    void parsesFreePlanFromTheExample() throws Exception {
        Plan plan = parser.parsePlan("free", fixture(VALID + "free.json"));

        assertEquals(new Plan("free", List.of(
                rate(new LimitPolicy("per-minute", Algorithm.SLIDING_WINDOW_COUNTER, 100, 60_000, null)),
                quota(new LimitPolicy("hourly", Algorithm.FIXED_WINDOW, 1000, 3_600_000, null)))), plan);
    }

    @Test
    void parsesProPlanWithTwoRateLimitsAndQuotaLast() throws Exception {
        Plan plan = parser.parsePlan("pro", fixture(VALID + "pro.json"));

        assertEquals(new Plan("pro", List.of(
                rate(new LimitPolicy("per-second", Algorithm.FIXED_WINDOW, 20, 1_000, null)),
                rate(new LimitPolicy("per-minute", Algorithm.SLIDING_WINDOW_LOG, 1000, 60_000, null)),
                quota(new LimitPolicy("daily", Algorithm.SLIDING_WINDOW_COUNTER, 100_000, 86_400_000, null)))), plan);
    }

    @Test
    void normalisesFractionalRefillPerSecondToExactRate() throws Exception {
        Plan plan = parser.parsePlan("burst", fixture(VALID + "token-bucket.json"));

        LimitPolicy bucket = plan.policies().get(0).limit();
        assertEquals(Algorithm.TOKEN_BUCKET, bucket.algorithm());
        assertEquals(10, bucket.limit());
        assertEquals(0, bucket.windowMs());
        assertEquals(new RefillRate(1, 2_000), bucket.refill());
        assertEquals(1, bucket.refill().tokens());
        assertEquals(2_000, bucket.refill().periodMs());
        assertEquals(PolicyKind.RATE, plan.policies().get(0).kind());
    }

    @Test
    void parsesLeakyBucketWithWholeRate() throws Exception {
        Plan plan = parser.parsePlan("smooth", fixture(VALID + "leaky-bucket.json"));

        assertEquals(new Plan("smooth", List.of(
                rate(new LimitPolicy("drain", Algorithm.LEAKY_BUCKET, 20, 0, new RefillRate(1, 250))))), plan);
    }

    @Test
    void normalisesRefillTokensPerPeriodToOneTokenEveryTwelveSeconds() throws Exception {
        Plan plan = parser.parsePlan("trickle", fixture(VALID + "refill-per-period.json"));

        LimitPolicy bucket = plan.policies().get(0).limit();
        assertEquals(Algorithm.TOKEN_BUCKET, bucket.algorithm());
        assertEquals(5, bucket.limit());
        assertEquals(1, bucket.refill().tokens());
        assertEquals(12_000, bucket.refill().periodMs());
    }

    @Test
    void appliesQuotaDefaultsOfNameAlgorithmAndWindow() throws Exception {
        Plan plan = parser.parsePlan("basic", fixture(VALID + "quota-defaults.json"));

        assertEquals(1, plan.policies().size());
        PlanPolicy quota = plan.policies().get(0);
        assertEquals(PolicyKind.QUOTA, quota.kind());
        assertEquals("quota", quota.name());
        assertEquals(Algorithm.FIXED_WINDOW, quota.limit().algorithm());
        assertEquals(1000, quota.limit().limit());
        assertEquals(3_600_000, quota.limit().windowMs());
        assertNull(quota.limit().refill());
    }

    @Test
    void acceptsValuesAtEveryUpperAndLowerBound() throws Exception {
        Plan plan = parser.parsePlan("A.b_c-9", fixture(VALID + "boundaries.json"));

        assertEquals(new Plan("A.b_c-9", List.of(
                rate(new LimitPolicy("shortest", Algorithm.FIXED_WINDOW, PlanParser.MAX_LIMIT, 1_000, null)),
                rate(new LimitPolicy("log-at-cap", Algorithm.SLIDING_WINDOW_LOG, PlanParser.MAX_LOG_LIMIT,
                        31L * 86_400_000, null)),
                rate(new LimitPolicy("finest-rate", Algorithm.TOKEN_BUCKET, PlanParser.MAX_LIMIT, 0,
                        new RefillRate(1, 1_000_000_000))))), plan);
    }

    @Test
    void derivesEachTagFromNameAndAlgorithm() throws Exception {
        Plan plan = parser.parsePlan("free", fixture(VALID + "free.json"));

        for (PlanPolicy policy : plan.policies()) {
            assertEquals(PlanPolicy.tagOf(policy.limit()), policy.tag());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"free.json", "pro.json", "token-bucket.json", "leaky-bucket.json", "refill-per-period.json",
            "quota-defaults.json", "boundaries.json"})
    void acceptsValidPlanWithoutRecordKey(String file) throws Exception {
        Plan plan = parser.parsePlan(null, fixture(VALID + file));

        assertEquals(plan, parser.parsePlan(plan.id(), fixture(VALID + file)));
    }

    @Test
    void everyValidFixtureIsListedInTheParameterizedTest() throws Exception {
        ValueSource source = PlanParserTest.class.getDeclaredMethod("acceptsValidPlanWithoutRecordKey", String.class)
                .getAnnotation(ValueSource.class);

        assertEquals(filesIn(VALID), new TreeSet<>(List.of(source.strings())));
    }

    @Test
    void rejectsPlanWhoseIdDiffersFromRecordKey() {
        InvalidPlanException e = assertThrows(InvalidPlanException.class,
                () -> parser.parsePlan("other", fixture(VALID + "free.json")));

        assertEquals("id", e.field());
        assertTrue(e.getMessage().contains("\"free\""), e.getMessage());
        assertTrue(e.getMessage().contains("\"other\""), e.getMessage());
    }

    @Test
    void acceptsFifteenRateLimitsAndRejectsSixteenSinceEveryDecisionCarriesAFieldForEach() throws Exception {
        assertEquals(15, parser.parsePlan(null, bytes(planWithRateLimits(15))).policies().size());

        InvalidPlanException e = assertThrows(InvalidPlanException.class,
                () -> parser.parsePlan(null, bytes(planWithRateLimits(16))));

        assertEquals("rateLimits", e.field());
        assertTrue(e.getMessage().contains("16 policies; a plan has at most 15 rate limits"), e.getMessage());
    }

    @Test
    void rejectsAValidPlanPaddedPastSixteenKibibytes() throws Exception {
        String padded = "{\"id\": \"padded\"," + " ".repeat(16 * 1024) + "\"quota\": {\"limit\": 10}}";

        InvalidPlanException e = assertThrows(InvalidPlanException.class, () -> parser.parsePlan(null, bytes(padded)));

        assertTrue(e.getMessage().contains((padded.length()) + " bytes; a plan or assignment has at most 16384"), e.getMessage());
    }

    private static String planWithRateLimits(int count) {
        StringBuilder json = new StringBuilder("{\"id\": \"many\", \"rateLimits\": [");
        for (int i = 0; i < count; i++) {
            json.append(i == 0 ? "" : ", ").append("{\"name\": \"r").append(i)
                    .append("\", \"algorithm\": \"fixed-window\", \"limit\": 10, \"window\": \"PT").append(i + 1).append("S\"}");
        }
        return json.append("]}").toString();
    }

    @Test
    void parsesAssignmentToItsPlanId() throws Exception {
        assertEquals("pro", parser.parseAssignment(bytes("{\"plan\": \"pro\"}")));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {}                              | plan | is missing
            {"plan": 7}                     | plan | 7
            {"plan": ["pro"]}               | plan | pro
            {"plan": "pro", "tier": "gold"} | tier | tier
            {"plan": "my plan"}             | plan | my plan
            plan=pro                        | ''   | plan
            ["pro"]                         | ''   | pro
            """)
    void rejectsInvalidAssignmentNamingFieldAndValue(String json, String field, String valueFragment) {
        InvalidPlanException e = assertThrows(InvalidPlanException.class, () -> parser.parseAssignment(bytes(json)));

        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(valueFragment), e.getMessage());
    }

    @Test
    void prefixesMessageWithFieldOnlyWhenThereIsOne() {
        assertEquals("quota.limit: is missing", new InvalidPlanException("quota.limit", "is missing").getMessage());
        assertEquals("not valid JSON", new InvalidPlanException("", "not valid JSON").getMessage());
    }

    private static PlanPolicy rate(LimitPolicy limit) {
        return new PlanPolicy(limit, PolicyKind.RATE);
    }

    private static PlanPolicy quota(LimitPolicy limit) {
        return new PlanPolicy(limit, PolicyKind.QUOTA);
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] fixture(String resource) {
        try (InputStream in = PlanParserTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no fixture " + resource);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> filesIn(String resourceDir) throws IOException, URISyntaxException {
        URL url = PlanParserTest.class.getResource(resourceDir);
        try (Stream<Path> files = Files.list(Path.of(url.toURI()))) {
            return files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.quotaenforcer.engine.RateLimitHeaders;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import dev.quotaenforcer.plan.PolicyKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;

/** Records written field by field are byte for byte what the generic JSON serde writes, and read back. */
class FieldJsonSerdeTest {

    private static final List<String> TEXTS = List.of("r-1", "clé \"quoted\" \\ ü 🔑", "", "line\nbreak\ttab\u0001",
            controlCharacters(), "/ \u007f \u0080 \u07ff \u0800 \u2028 \uffff 鍵 \ud83d\ude00");
    private static final long[] EDGE_NUMBERS = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -10, -1, 0, 1, 9, 10, Long.MAX_VALUE};

    @Test
    void writesDecisionsAsTheGenericSerdeDoes() {
        Random random = new Random(20261130L);
        Reason[] reasons = Reason.values();
        for (int i = 0; i < 2_000; i++) {
            Map<String, String> headers = new LinkedHashMap<>();
            for (int h = random.nextInt(6); h > 0; h--) {
                headers.put("RateLimit-" + h + TEXTS.get(random.nextInt(TEXTS.size())),
                        TEXTS.get(random.nextInt(TEXTS.size())) + random.nextLong());
            }
            assertSameAsGeneric(FieldJsonSerde.decisions(), new JsonSerde<>(Decision.class), new Decision(text(random),
                    text(random), text(random), random.nextBoolean(),
                    random.nextInt(8) == 0 ? null : reasons[random.nextInt(reasons.length)], text(random),
                    number(random), number(random), random.nextInt(), -1 + random.nextInt(5), number(random),
                    instant(random), random.nextInt(8) == 0 ? null : headers));
        }
    }

    @Test
    void oneSerializerWritesRepeatedAndChangedPlanPolicyAndPolicyHeaderTextAsTheGenericSerdeDoes() {
        Serializer<Decision> serializer = FieldJsonSerde.decisions().serializer();
        JsonSerde<Decision> generic = new JsonSerde<>(Decision.class);
        Random random = new Random(20261203L);
        // Plan and policy names as the engine hands them over (the same objects, decision after decision),
        // changed now and then, also to equal text in a new object, and null.
        String[] names = {"pro", "free \"tier\"", new String("pro"), "clé", null};
        String plan = names[0];
        String policy = names[1];
        String policyHeader = "\"per-minute\";q=100;w=60, \"hourly\";q=5000;w=3600";
        for (int i = 0; i < 2_000; i++) {
            if (random.nextInt(10) == 0) {
                plan = names[random.nextInt(names.length)];
                policy = names[random.nextInt(names.length)];
                policyHeader = random.nextBoolean() ? new String(policyHeader) : TEXTS.get(random.nextInt(TEXTS.size()));
            }
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put(RateLimitHeaders.RETRY_AFTER, Long.toString(random.nextInt(60)));
            headers.put(RateLimitHeaders.POLICY, policyHeader);
            headers.put(RateLimitHeaders.RATE_LIMIT, "\"" + policy + "\";r=" + random.nextInt(100) + ";t=3");
            Decision decision = new Decision(text(random), text(random), plan, random.nextBoolean(),
                    random.nextInt(8) == 0 ? null : Reason.values()[random.nextInt(Reason.values().length)], policy,
                    number(random), number(random), random.nextInt(), 0, 0, instant(random), headers);

            assertEquals(new String(generic.serializer().serialize("t", decision), StandardCharsets.UTF_8),
                    new String(serializer.serialize("t", decision), StandardCharsets.UTF_8));
        }
    }

    @Test
    void policiesTakingTurnsAndTextsOfOneHashAreEachWrittenAsTheirOwn() {
        Serializer<Decision> serializer = FieldJsonSerde.decisions().serializer();
        JsonSerde<Decision> generic = new JsonSerde<>(Decision.class);
        // "Aa" and "BB" have the same String hash, so as plan ids and as policy names they compete for
        // what the serializer keeps of each; each plan's two policies take turns binding.
        List<Plan> plans = List.of(plan("Aa", "BB"), plan("BB", "Aa"));
        int[] turns = {0, 1, 1, 0, 1, 0, 0, 1, 1, 1};
        for (int i = 0; i < turns.length; i++) {
            Plan plan = plans.get(i % 2);
            String policy = plan.policies().get(turns[i]).limit().name();
            Decision fields = new Decision("r-" + i, "k", plan.id(), i % 3 != 0, Reason.OK, policy, 100, i, 1, i % 3, 0,
                    Instant.parse("2026-12-03T00:00:00Z"), null);
            Decision decision = fields.withHeaders(RateLimitHeaders.of(plan, fields));

            assertEquals(new String(generic.serializer().serialize("t", decision), StandardCharsets.UTF_8),
                    new String(serializer.serialize("t", decision), StandardCharsets.UTF_8), plan.id() + " " + policy);
        }
    }

    @Test
    void writesTheEnginesHeadersFromTheirNumbersAsTheGenericSerdeWritesTheirText() {
        Serializer<Decision> serializer = FieldJsonSerde.decisions().serializer();
        JsonSerde<Decision> generic = new JsonSerde<>(Decision.class);
        Random random = new Random(20261204L);
        List<Plan> plans = List.of(plan("pro", "per-minute"), plan("free \"tier\"", "clé \\ \"q\" 🔑\n"));
        Reason[] reasons = Reason.values();
        for (int i = 0; i < 2_000; i++) {
            Plan plan = plans.get(random.nextInt(plans.size()));
            String policy = random.nextInt(20) == 0 ? null : plan.policies().get(random.nextInt(2)).limit().name();
            Decision fields = new Decision(text(random), text(random), plan.id(), random.nextBoolean(),
                    reasons[random.nextInt(reasons.length)], policy, number(random), number(random), number(random),
                    random.nextInt(4) == 0 ? Verdict.NEVER : number(random), 0, instant(random), null);
            Decision decision = fields.withHeaders(RateLimitHeaders.of(plan, fields));

            assertEquals(new String(generic.serializer().serialize("t", decision), StandardCharsets.UTF_8),
                    new String(serializer.serialize("t", decision), StandardCharsets.UTF_8));
            assertEquals(decision, generic.deserializer().deserialize("t", serializer.serialize("t", decision)));
        }
    }

    private static Plan plan(String id, String policy) {
        return new Plan(id, List.of(
                new PlanPolicy(LimitPolicy.window(policy, Algorithm.SLIDING_WINDOW_COUNTER, 100, Duration.ofMinutes(1)),
                        PolicyKind.RATE),
                new PlanPolicy(LimitPolicy.window("hourly", Algorithm.FIXED_WINDOW, 5_000, Duration.ofHours(1)),
                        PolicyKind.QUOTA)));
    }

    @Test
    void writesKeyUsageAsTheGenericSerdeDoes() {
        Random random = new Random(20261201L);
        for (int i = 0; i < 2_000; i++) {
            assertSameAsGeneric(FieldJsonSerde.keyUsage(), new JsonSerde<>(KeyUsage.class), new KeyUsage(text(random),
                    text(random), number(random), instant(random), number(random), random.nextInt(), number(random),
                    random.nextInt(100), number(random)));
        }
    }

    @Test
    void aRecordAfterAnOutsizedOneOnTheSameThreadIsWrittenAlone() {
        Serializer<Decision> serializer = FieldJsonSerde.decisions().serializer();
        JsonSerde<Decision> generic = new JsonSerde<>(Decision.class);
        Instant at = Instant.parse("2026-12-03T10:00:00.123Z");
        Decision outsized = new Decision("r".repeat(100_000), "k-1", "pro", true, Reason.OK, "per-minute", 100, 99, 60, 0, 0,
                at, Map.of("X-Long", "v".repeat(50_000)));
        Decision small = new Decision("r-2", "k-1", "pro", true, Reason.OK, "per-minute", 100, 98, 60, 0, 0, at, Map.of());
        for (Decision decision : List.of(small, outsized, small, outsized, outsized, small)) {
            assertEquals(new String(generic.serializer().serialize("t", decision), StandardCharsets.UTF_8),
                    new String(serializer.serialize("t", decision), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aDecisionWrittenForTheDecisionsTopicGetsTheSameBytesAsItsReply() {
        Serializer<Decision> decisions = FieldJsonSerde.decisions().serializer();
        Serializer<Decision> replies = FieldJsonSerde.decisions().serializer();
        Instant at = Instant.parse("2026-12-07T10:00:00.123Z");
        Decision decision = new Decision("r-1", "k-1", "pro", true, Reason.OK, "per-minute", 100, 99, 60, 0, 0, at, Map.of());

        byte[] record = decisions.serialize("quota.decisions", decision);

        assertArrayEquals(record, replies.serialize("quota.replies", decision));
    }

    @Test
    void aValueWrittenAgainRightAfterIsCopiedFromTheBufferAndOtherwiseWrittenAgain() {
        int[] writes = {0};
        FieldJsonSerde<KeyUsage> counting = new FieldJsonSerde<>(KeyUsage.class, () -> (usage, json) -> {
            writes[0]++;
            json.field("apiKey").string(usage.apiKey());
        });
        Serializer<KeyUsage> first = counting.serializer();
        Serializer<KeyUsage> second = counting.serializer();
        KeyUsage usage = new KeyUsage("k-1", "pro", 100, Instant.parse("2026-12-07T10:00:00Z"), 3, 1, 3, 1, 0);
        KeyUsage equal = new KeyUsage("k-1", "pro", 100, Instant.parse("2026-12-07T10:00:00Z"), 3, 1, 3, 1, 0);

        byte[] written = first.serialize("t", usage);
        byte[] copied = second.serialize("t", usage);
        byte[] equalWritten = first.serialize("t", equal);

        assertEquals("{\"apiKey\":\"k-1\"}", new String(written, StandardCharsets.UTF_8));
        assertArrayEquals(written, copied);
        assertNotSame(written, copied);
        assertArrayEquals(written, equalWritten);
        assertEquals(2, writes[0]);
    }

    @Test
    void aValueWrittenBeforeAWriteThatFailedIsWrittenAgainNotTakenFromThePartBuffered() {
        FieldJsonSerde<KeyUsage> failing = new FieldJsonSerde<>(KeyUsage.class, () -> (usage, json) -> {
            json.field("apiKey").string(usage.apiKey());
            if (usage.plan() == null) {
                throw new IllegalStateException("no plan");
            }
            json.field("plan").string(usage.plan());
        });
        Serializer<KeyUsage> serializer = failing.serializer();
        KeyUsage usage = new KeyUsage("k-1", "pro", 100, Instant.parse("2026-12-07T10:00:00Z"), 3, 1, 3, 1, 0);
        KeyUsage planless = new KeyUsage("k-2", null, 100, Instant.parse("2026-12-07T10:00:00Z"), 3, 1, 3, 1, 0);

        serializer.serialize("t", usage);
        assertThrows(IllegalStateException.class, () -> serializer.serialize("t", planless));

        assertEquals("{\"apiKey\":\"k-1\",\"plan\":\"pro\"}",
                new String(serializer.serialize("t", usage), StandardCharsets.UTF_8));
    }

    @Test
    void anEqualDecisionOrOneWrittenBeforeTheLastIsWrittenAnew() {
        Serializer<Decision> serializer = FieldJsonSerde.decisions().serializer();
        JsonSerde<Decision> generic = new JsonSerde<>(Decision.class);
        Instant at = Instant.parse("2026-12-07T10:00:00.123Z");
        Decision first = new Decision("r-1", "k-1", "pro", true, Reason.OK, "per-minute", 100, 99, 60, 0, 0, at, Map.of());
        Decision equal = new Decision("r-1", "k-1", "pro", true, Reason.OK, "per-minute", 100, 99, 60, 0, 0, at, Map.of());
        Decision other = new Decision("r-2", "k-1", "pro", false, Reason.RATE_LIMITED, "per-minute", 100, 0, 60, 60, 0, at,
                Map.of());

        byte[] written = serializer.serialize("t", first);
        byte[] again = serializer.serialize("t", equal);
        byte[] otherWritten = serializer.serialize("t", other);
        byte[] firstAgain = serializer.serialize("t", first);

        assertNotSame(written, again);
        assertArrayEquals(written, again);
        assertNotSame(written, firstAgain);
        assertArrayEquals(written, firstAgain);
        assertArrayEquals(generic.serializer().serialize("t", other), otherWritten);
    }

    @Test
    void aValueWrittenOnAnotherThreadIsWrittenAgainOnThisOne() throws InterruptedException {
        Serializer<Decision> serializer = FieldJsonSerde.decisions().serializer();
        Instant at = Instant.parse("2026-12-07T10:00:00.123Z");
        Decision decision = new Decision("r-1", "k-1", "pro", true, Reason.OK, "per-minute", 100, 99, 60, 0, 0, at, Map.of());
        byte[][] there = new byte[1][];
        Thread other = new Thread(() -> there[0] = serializer.serialize("t", decision));
        other.start();
        other.join();

        byte[] here = serializer.serialize("t", decision);

        assertNotSame(there[0], here);
        assertArrayEquals(there[0], here);
    }

    @Test
    void nullStaysNullForTombstones() {
        assertNull(FieldJsonSerde.decisions().serializer().serialize("t", null));
        assertNull(FieldJsonSerde.keyUsage().serializer().serialize("t", null));
    }

    private static <T> void assertSameAsGeneric(Serde<T> fields, JsonSerde<T> generic, T value) {
        byte[] written = fields.serializer().serialize("t", value);

        assertEquals(new String(generic.serializer().serialize("t", value), StandardCharsets.UTF_8),
                new String(written, StandardCharsets.UTF_8));
        assertEquals(value, fields.deserializer().deserialize("t", written));
    }

    private static String text(Random random) {
        return random.nextInt(6) == 0 ? null : TEXTS.get(random.nextInt(TEXTS.size()));
    }

    private static long number(Random random) {
        return random.nextBoolean() ? EDGE_NUMBERS[random.nextInt(EDGE_NUMBERS.length)] : random.nextLong();
    }

    private static String controlCharacters() {
        StringBuilder text = new StringBuilder();
        for (char c = 0; c < 0x20; c++) {
            text.append(c);
        }
        return text.toString();
    }

    private static Instant instant(Random random) {
        return random.nextInt(8) == 0 ? null : Instant.ofEpochMilli(random.nextLong(253_402_300_799_999L));
    }
}

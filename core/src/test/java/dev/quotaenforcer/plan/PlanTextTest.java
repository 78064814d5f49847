package dev.quotaenforcer.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.RefillRate;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How plans list writes rates and windows, and that what it writes reads back into the same plan. */
class PlanTextTest {

    private static final Pattern PER_UNIT = Pattern.compile("(\\d+)/(s|min|h)");
    private static final Pattern PER_DURATION = Pattern.compile("(\\d+) per (\\d+)(d|h|min|s|ms)");
    private static final Map<String, Long> UNIT_MS =
            Map.of("d", 86_400_000L, "h", 3_600_000L, "min", 60_000L, "s", 1_000L, "ms", 1L);

    private final PlanParser parser = new PlanParser();

    @ParameterizedTest(name = "{0} per {1} ms -> {2}")
    @CsvSource(textBlock = """
            1,                   50,         20/s
            5,                   1000,       5/s
            1,                   1,          1000/s
            1000000000,          1000,       1000000000/s
            5,                   60000,      5/min
            2,                   3000,       40/min
            1,                   3600000,    1/h
            7,                   90000,      280/h
            1,                   7200000,    1 per 2h
            1,                   86400000,   1 per 1d
            3,                   7000,       3 per 7s
            1000,                7000,       1 per 7ms
            1,                   15625,      1 per 15625ms
            617,                 500000000,  617 per 500000s
            9223372036854775807, 1,          9223372036854775807 per 1ms
            """)
    void rateIsAWholeNumberPerSecondMinuteOrHourElseTheExactFraction(long tokens, long periodMs, String text) {
        assertEquals(text, PlanText.rate(new RefillRate(tokens, periodMs)));
    }

    @ParameterizedTest(name = "{0} ms -> {1}")
    @CsvSource(textBlock = """
            0,          0s
            1500,       1500ms
            1000,       1s
            90000,      90s
            60000,      1min
            5400000,    90min
            3600000,    1h
            90000000,   25h
            86400000,   1d
            2678400000, 31d
            90061000,   90061s
            """)
    void durationIsAWholeNumberOfItsLargestUnitThatDividesIt(long ms, String text) {
        assertEquals(text, PlanText.duration(ms));
    }

    @Test
    void windowIsTheLimitPerTheDuration() {
        assertEquals("3 per 1h", PlanText.window(3, 3_600_000));
    }

    @Test
    void everyRateAPlanCanGiveReadsBackIntoTheSameRate() throws InvalidPlanException {
        List<String> refills = new ArrayList<>(List.of("\"refillPerSecond\": 20", "\"refillPerSecond\": 0.064",
                "\"refillPerSecond\": 0.000001", "\"refillPerSecond\": 999999.999999", "\"refillPerSecond\": 1000000000",
                "\"refillTokens\": 1000, \"refillPeriod\": \"PT7S\"", "\"refillTokens\": 1, \"refillPeriod\": \"P31D\"",
                "\"refillTokens\": 2, \"refillPeriod\": \"PT3S\""));
        Random random = new Random(7);
        for (int i = 0; i < 2_000; i++) {
            refills.add(random.nextBoolean()
                    ? "\"refillPerSecond\": " + BigDecimal.valueOf(1 + random.nextInt(1_000_000_000), random.nextInt(7))
                    : "\"refillTokens\": " + (1 + random.nextInt(1_000_000_000)) + ", \"refillPeriod\": \"PT"
                            + (1 + random.nextInt(31 * 86_400)) + "S\"");
        }
        int readBack = 0;
        for (String refill : refills) {
            RefillRate rate = bucketRate(refill);
            if (rate == null) {
                continue;
            }
            String text = PlanText.rate(rate);
            assertEquals(rate, bucketRate(refillFields(text)), refill + " written as " + text);
            readBack++;
        }
        assertTrue(readBack > 1_500, "most generated rates are plans the parser accepts: " + readBack);
    }

    @Test
    void everyWindowAPlanCanGiveReadsBackIntoTheSameWindow() throws InvalidPlanException {
        Random random = new Random(11);
        for (int i = 0; i < 2_000; i++) {
            long seconds = i == 0 ? 31 * 86_400 : 1 + random.nextInt(31 * 86_400);
            long windowMs = window("PT" + seconds + "S");
            String text = PlanText.duration(windowMs);
            Matcher written = Pattern.compile("(\\d+)(d|h|min|s)").matcher(text);
            assertTrue(written.matches(), "a window is whole seconds, so never written in ms: " + text);
            long ms = Long.parseLong(written.group(1)) * UNIT_MS.get(written.group(2));
            assertEquals(windowMs, window("PT" + ms / 1000 + "S"), seconds + " s written as " + text);
        }
    }

    /** The refill rate of a one-bucket plan with these refill fields, or null when the parser rejects it. */
    private RefillRate bucketRate(String refillFields) {
        String json = "{\"id\": \"p\", \"rateLimits\": [{\"name\": \"b\", \"algorithm\": \"token-bucket\", "
                + "\"capacity\": 1, " + refillFields + "}]}";
        try {
            return parser.parsePlan("p", json.getBytes(StandardCharsets.UTF_8)).policies().get(0).limit().refill();
        } catch (InvalidPlanException e) {
            return null;
        }
    }

    private long window(String iso) throws InvalidPlanException {
        String json = "{\"id\": \"p\", \"rateLimits\": [{\"name\": \"w\", \"algorithm\": \"fixed-window\", "
                + "\"limit\": 1, \"window\": \"" + iso + "\"}]}";
        LimitPolicy policy = parser.parsePlan("p", json.getBytes(StandardCharsets.UTF_8)).policies().get(0).limit();
        return policy.windowMs();
    }

    /**
     * The plan fields that say what {@code text} says: refillPerSecond when tokens per second is a decimal the
     * parser takes, else refillTokens per a refillPeriod of whole seconds (both scaled up when the period is not).
     */
    private static String refillFields(String text) {
        long tokens;
        long periodMs;
        Matcher perUnit = PER_UNIT.matcher(text);
        Matcher perDuration = PER_DURATION.matcher(text);
        if (perUnit.matches()) {
            tokens = Long.parseLong(perUnit.group(1));
            periodMs = UNIT_MS.get(perUnit.group(2));
        } else {
            assertTrue(perDuration.matches(), "a rate is N/unit or T per D: " + text);
            tokens = Long.parseLong(perDuration.group(1));
            periodMs = Long.parseLong(perDuration.group(2)) * UNIT_MS.get(perDuration.group(3));
        }
        BigDecimal perSecond = BigDecimal.valueOf(tokens * 1000);
        try {
            perSecond = perSecond.divide(BigDecimal.valueOf(periodMs)).stripTrailingZeros();
            if (perSecond.scale() <= PlanParser.MAX_RATE_SCALE && perSecond.compareTo(BigDecimal.valueOf(PlanParser.MAX_LIMIT)) <= 0) {
                return "\"refillPerSecond\": " + perSecond.toPlainString();
            }
        } catch (ArithmeticException e) {
            // Not a terminating decimal (e.g. 3 per 7s): only refillTokens with refillPeriod says it.
        }
        long scale = 1000 / BigInteger.valueOf(periodMs).gcd(BigInteger.valueOf(1000)).longValueExact();
        return "\"refillTokens\": " + tokens * scale + ", \"refillPeriod\": \"PT" + periodMs * scale / 1000 + "S\"";
    }
}

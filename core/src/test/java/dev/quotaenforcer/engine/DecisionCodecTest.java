package dev.quotaenforcer.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanParser;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A remembered decision decodes to the decision itself, headers included, with the plan it was made under. */
class DecisionCodecTest {

    static final String PLAN = """
            {"id": "mixed",
             "rateLimits": [{"name": "per-second", "algorithm": "token-bucket", "capacity": 5, "refillPerSecond": 2},
                            {"name": "per-minute", "algorithm": "sliding-window-counter", "limit": 20, "window": "PT1M"}],
             "quota": {"name": "hourly", "limit": 60, "window": "PT1H"}}""";

    @Test
    void everyDecisionOfARandomRunDecodesToItselfWithItsHeaders() throws Exception {
        Plan plan = new PlanParser().parsePlan("mixed", PLAN.getBytes(StandardCharsets.UTF_8));
        SplittableRandom random = new SplittableRandom(3);
        KeyState state = null;
        long time = 1_796_040_000_000L;
        int denied = 0;
        for (int i = 0; i < 2_000; i++) {
            time += random.nextInt(2_000);
            RequestEvent request = new RequestEvent("r-" + i, "k-1", 1 + random.nextInt(3), time);
            PlanEvaluation evaluation = QuotaEngine.evaluate(plan, state, time, request.cost());
            state = evaluation.state();
            Decision decision = DecisionFactory.of(request, evaluation);
            denied += decision.allowed() ? 0 : 1;

            byte[] bytes = DecisionCodec.encode(decision);

            assertEquals(decision, DecisionCodec.decode(bytes, "r-" + i, "k-1", Map.of("mixed", plan)::get), "request " + i);
            assertTrue(bytes.length <= 48, bytes.length + " bytes");
        }
        assertTrue(denied > 100, "both kinds decoded: " + denied + " denials");
    }

    @Test
    void namesAreWrittenAsTheirUtf8LengthAndBytesAsciiOrNot() {
        Decision ascii = new Decision("r", "k", "p", true, Reason.OK, "q", 10, 9, 1, 0, 0, Instant.EPOCH, Map.of());
        Decision accented = new Decision("r", "k", "é", true, Reason.OK, "每秒", 10, 9, 1, 0, 0, Instant.EPOCH, Map.of());

        assertArrayEquals(new byte[] {1, 1, 3, 'O', 'K', 2, 'p', 2, 'q', 10, 9, 1, 0, 0, 0}, DecisionCodec.encode(ascii));
        assertArrayEquals(new byte[] {1, 1, 3, 'O', 'K', 3, (byte) 0xC3, (byte) 0xA9, 7, (byte) 0xE6, (byte) 0xAF, (byte) 0x8F,
                (byte) 0xE7, (byte) 0xA7, (byte) 0x92, 10, 9, 1, 0, 0, 0}, DecisionCodec.encode(accented));
        assertEquals(accented, DecisionCodec.decode(DecisionCodec.encode(accented), "r", "k", id -> null));
    }

    @Test
    void bytesOfAnotherVersionAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> DecisionCodec.decode(new byte[] {9, 0}, "r", "k", id -> null));
    }
}

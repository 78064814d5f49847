package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Decisions written field by field are byte for byte what the generic JSON serde writes, and read back. */
class DecisionSerdeTest {

    private final DecisionSerde serde = new DecisionSerde();
    private final JsonSerde<Decision> generic = new JsonSerde<>(Decision.class);

    @Test
    void writesTheSameBytesAsTheGenericSerdeForSeededDecisions() {
        Random random = new Random(20261130L);
        List<String> texts = List.of("r-1", "clé \"quoted\" \\ ü 🔑", "", "line\nbreak\ttab\u0001");
        for (int i = 0; i < 2_000; i++) {
            Map<String, String> headers = new LinkedHashMap<>();
            for (int h = random.nextInt(6); h > 0; h--) {
                headers.put("RateLimit-" + h, texts.get(random.nextInt(texts.size())) + random.nextLong());
            }
            Reason[] reasons = Reason.values();
            Decision decision = new Decision(pick(random, texts), pick(random, texts), pick(random, texts),
                    random.nextBoolean(), random.nextInt(8) == 0 ? null : reasons[random.nextInt(reasons.length)],
                    pick(random, texts), random.nextLong(), random.nextLong(), random.nextInt(), -1 + random.nextInt(5),
                    random.nextInt(1000), random.nextInt(8) == 0 ? null : Instant.ofEpochMilli(random.nextLong(253_402_300_799_999L)),
                    random.nextInt(8) == 0 ? null : headers);

            byte[] written = serde.serializer().serialize("t", decision);

            assertEquals(new String(generic.serializer().serialize("t", decision), StandardCharsets.UTF_8),
                    new String(written, StandardCharsets.UTF_8));
            assertEquals(decision, serde.deserializer().deserialize("t", written));
        }
    }

    @Test
    void nullStaysNullForTombstones() {
        assertNull(serde.serializer().serialize("t", null));
    }

    private static String pick(Random random, List<String> texts) {
        return random.nextInt(6) == 0 ? null : texts.get(random.nextInt(texts.size()));
    }
}

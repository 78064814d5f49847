package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What the generic serde cannot be compared on: text that is not valid UTF-16, growing past the first buffer, every number. */
class JsonBytesTest {

    @Test
    void writesLoneSurrogatesAsEscapesRatherThanFailing() {
        String json = text(new JsonBytes().startObject().field("k\ud800").string("a \udfff b").endObject());

        assertEquals("{\"k\\uD800\":\"a \\uDFFF b\"}", json);
    }

    @Test
    void growsForLongTextAndNestsObjects() {
        String longText = "é\n".repeat(500);
        String json = text(new JsonBytes().startObject().field("a").string(longText)
                .field("o").startObject().field("n").number(-42).field("t").bool(true).endObject()
                .field("z").nullValue().endObject());

        assertEquals("{\"a\":\"" + "é\\n".repeat(500) + "\",\"o\":{\"n\":-42,\"t\":true},\"z\":null}", json);
    }

    @Test
    void writesEveryNumberAsJavaDoes() {
        List<Long> values = new ArrayList<>(List.of(0L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1));
        for (long power = 1; power > 0 && power <= Long.MAX_VALUE / 10; power *= 10) {
            values.addAll(List.of(power - 1, power, power + 1, -power, 10 * power - 1));
        }
        new Random(42).longs(10_000).forEach(values::add);
        new Random(43).ints(10_000, -100_000, 100_000).forEach(small -> values.add((long) small));
        JsonBytes json = new JsonBytes();
        for (long value : values) {
            assertEquals(Long.toString(value), text(json.reset().number(value)), "value " + value);
        }
    }

    private static String text(JsonBytes json) {
        return new String(json.toByteArray(), StandardCharsets.UTF_8);
    }
}

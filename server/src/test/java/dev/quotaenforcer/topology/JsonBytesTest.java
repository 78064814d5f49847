package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the generic serde cannot be compared on: text that is not valid UTF-16, and growing past the first buffer. */
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

    private static String text(JsonBytes json) {
        return new String(json.toByteArray(), StandardCharsets.UTF_8);
    }
}

package dev.quotaenforcer.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.topology.JsonSerde;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The keys of a plan as the operator API ranks and exchanges them between instances. */
class TopKeyTest {

    private static final ObjectMapper JSON = JsonSerde.mapper();

    @Test
    void ranksKeysOverQuotaFirstThenByDenialsOverQuotaThenByCostAllowed() {
        TopKey half = new TopKey("half", 50, 0, 50, 0, 50, 100);
        TopKey overFewDenied = new TopKey("over-few", 100, 2, 100, 2, 100, 100);
        TopKey overManyDenied = new TopKey("over-many", 100, 9, 100, 9, 100, 100);
        TopKey noQuotaBigSpender = new TopKey("no-quota", 900, 0, 900, 0, 0, 0);
        TopKey noQuotaSmall = new TopKey("no-quota-small", 3, 0, 3, 0, 0, 0);
        List<TopKey> keys = new ArrayList<>(List.of(noQuotaSmall, half, overFewDenied, noQuotaBigSpender, overManyDenied));

        keys.sort(TopKey.NEAREST_TO_QUOTA);

        assertEquals(List.of(overManyDenied, overFewDenied, half, noQuotaBigSpender, noQuotaSmall), keys);
    }

    @Test
    void jsonCarriesTheQuotaShareAndReadsBackIntoTheSameKey() throws Exception {
        TopKey key = new TopKey("k", 30, 5, 45, 5, 150, 200);

        String json = JSON.writeValueAsString(key);

        assertTrue(json.contains("\"quotaShare\":0.75"), json);
        assertEquals(key, JSON.readValue(json, TopKey.class), "what one instance sends another reads back whole");
    }
}

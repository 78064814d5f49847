package dev.quotaenforcer.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.plan.PolicyKind;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Masked API keys: stable, distinct, revealing little; plain ones unchanged. */
class KeyDisplayTest {

    @Test
    void aLongKeyShowsItsFirstFourCharactersAndEightHexDigitsOfItsDigest() {
        String masked = KeyDisplay.MASKED.show("sk_live_0123456789abcdef");

        assertTrue(masked.matches("sk_l…[0-9a-f]{8}"), masked);
        assertFalse(masked.contains("0123456789abcdef"));
    }

    @Test
    void theSameKeyIsMaskedAlikeAndTwoKeysDifferently() {
        assertEquals(KeyDisplay.MASKED.show("customer-000001"), KeyDisplay.MASKED.show("customer-000001"));
        assertNotEquals(KeyDisplay.MASKED.show("customer-000001"), KeyDisplay.MASKED.show("customer-000002"),
                "keys alike in their first characters still differ by their digest");
    }

    @Test
    void aKeyUnderTwelveCharactersShowsNoneOfThem() {
        String masked = KeyDisplay.MASKED.show("key-0");

        assertTrue(masked.matches("…[0-9a-f]{8}"), masked);
    }

    @Test
    void aKeyOfCharactersBeyondTheBasicPlaneKeepsWholeCharacters() {
        String masked = KeyDisplay.MASKED.show("😀😀😀😀😀😀😀😀");

        assertTrue(masked.startsWith("😀😀😀😀…"), masked);
    }

    @Test
    void topKeysAndExceededEventsKeepEverythingButTheKey() {
        TopKey key = new TopKey("customer-000001", 1, 2, 3, 4, 5, 6);
        QuotaExceeded event = new QuotaExceeded("customer-000001", "basic", "hourly", PolicyKind.QUOTA, 100,
                Instant.EPOCH, Instant.EPOCH.plusSeconds(3600), "r-1", Instant.EPOCH.plusSeconds(10));
        String masked = KeyDisplay.MASKED.show("customer-000001");

        assertEquals(new TopKey(masked, 1, 2, 3, 4, 5, 6), KeyDisplay.MASKED.show(key));
        assertEquals(new QuotaExceeded(masked, "basic", "hourly", PolicyKind.QUOTA, 100, Instant.EPOCH,
                Instant.EPOCH.plusSeconds(3600), "r-1", Instant.EPOCH.plusSeconds(10)), KeyDisplay.MASKED.show(event));
    }

    @Test
    void plainShowsKeysAsTheyAre() {
        TopKey key = new TopKey("customer-000001", 1, 2, 3, 4, 5, 6);

        assertEquals("customer-000001", KeyDisplay.PLAIN.show("customer-000001"));
        assertEquals(key, KeyDisplay.PLAIN.show(key));
    }
}

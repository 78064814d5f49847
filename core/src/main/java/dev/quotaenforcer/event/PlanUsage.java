package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;

/**
 * One plan's use in one calendar hour: how many keys were active, what they were allowed and
 * denied, and how many ran out of their quota.
 */
@JsonPropertyOrder({"plan", "hour", "activeKeys", "allowed", "denied", "keysOverQuota"})
public record PlanUsage(String plan, Instant hour, long activeKeys, long allowed, long denied, long keysOverQuota) {

    public static PlanUsage none(String plan, Instant hour) {
        return new PlanUsage(plan, hour, 0, 0, 0, 0);
    }

    /** With one key's usage of the hour counted in ({@code sign} 1) or taken out again ({@code sign} -1). */
    public PlanUsage with(KeyUsage key, int sign) {
        return new PlanUsage(key.plan(), key.hour(), activeKeys + sign, allowed + sign * key.allowed(),
                denied + sign * key.denied(), keysOverQuota + (key.quotaDenied() > 0 ? sign : 0));
    }

    /** With another figure of the same plan and hour added ({@code sign} 1) or taken out ({@code sign} -1). */
    public PlanUsage with(PlanUsage other, int sign) {
        return new PlanUsage(plan, hour, activeKeys + sign * other.activeKeys, allowed + sign * other.allowed,
                denied + sign * other.denied, keysOverQuota + sign * other.keysOverQuota);
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;

/**
 * What a task writes about usage at each usage interval: a key's figure for an hour, or the task's
 * share of a plan's hour (the figures of the plan's keys this task decides).
 */
record UsageReport(KeyUsage keyUsage, PlanUsagePart planPart) {

    static UsageReport of(KeyUsage keyUsage) {
        return new UsageReport(keyUsage, null);
    }

    static UsageReport of(PlanUsagePart planPart) {
        return new UsageReport(null, planPart);
    }

    boolean isKeyUsage() {
        return keyUsage != null;
    }

    /** One task's share of a plan's hour; {@code task} names it so a later share replaces the earlier one. */
    record PlanUsagePart(String task, PlanUsage usage) {
    }
}

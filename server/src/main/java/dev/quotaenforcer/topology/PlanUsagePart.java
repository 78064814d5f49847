package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.PlanUsage;

/**
 * One task's share of a plan's hour (the figures of the plan's keys this task decides), as each
 * usage write sends it towards the plan's total; {@code task} names it so a later share replaces the earlier one.
 */
record PlanUsagePart(String task, PlanUsage usage) {
}

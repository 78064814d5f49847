package dev.quotaenforcer.engine;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.limit.PolicyState;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Applies an operator's command to a key's state, at the command's time (never before the key's
 * newest event, like a request):
 *
 * <ul>
 * <li>{@code reset} drops the counted state of the named policy, or of every policy: the key counts
 *     afresh from now and any run of denials ends. Grants and a block stay.</li>
 * <li>{@code grant} raises the named policy's allowance by the amount until its current window ends
 *     ({@link dev.quotaenforcer.limit.LimitPolicy#grantEnd}); a second grant in force adds up (for a
 *     bucket it also extends the end). A token bucket receives the tokens at once.</li>
 * <li>{@code block} denies every request of the key with {@link Reason#BLOCKED}, consuming nothing,
 *     until the given time or until unblocked; a later block replaces the earlier one.</li>
 * <li>{@code unblock} lifts the operator's block; limits that still deny keep denying.</li>
 * </ul>
 *
 * <p>Every applied command also says what the blocks topic must hold for the key afterwards: the
 * operator's block, else a block from a policy that still denies a request of cost 1, else nothing
 * (a tombstone), so gateways reading that topic follow the command at once.
 */
public final class KeyCommands {

    private KeyCommands() {
    }

    /** What applying one command did: the key's new state and block, or why it cannot apply. */
    public sealed interface Applied permits Applied.Done, Applied.NotApplicable {

        /**
         * The command applied.
         *
         * @param state the key's state to store; null when nothing is left to keep
         * @param block what the blocks topic holds for the key now; null to lift any block
         */
        record Done(KeyState state, Block block) implements Applied {
        }

        /** The command cannot apply, and why; the key's state is unchanged. */
        record NotApplicable(String problem) implements Applied {
        }
    }

    /**
     * @param plan     the key's plan, or null when the key has none that can be read (then only
     *                 {@code block}, {@code unblock} and a reset of all policies apply)
     * @param previous the key's stored state, or null for none
     * @param time     the command's time
     */
    public static Applied apply(Plan plan, KeyState previous, KeyCommand command, long time) {
        long now = previous == null ? time : Math.max(time, previous.lastSeen());
        KeyState current = previous == null ? new KeyState(now, now, List.of()) : previous.at(now);
        KeyState changed;
        try {
            changed = switch (command.type()) {
                case RESET -> command.policy() == null ? current.withSlots(List.of())
                        : reset(current, policy(plan, command));
                case GRANT -> grant(current, policy(plan, command), command.amount(), now);
                case BLOCK -> block(current, command, now);
                case UNBLOCK -> current.withBlock(KeyState.NOT_BLOCKED);
            };
        } catch (IllegalArgumentException e) {
            return new Applied.NotApplicable(e.getMessage());
        }
        KeyState state = changed.isEmpty() ? null : changed;
        return new Applied.Done(state, blockAfter(plan, command.apiKey(), state, now));
    }

    private static PlanPolicy policy(Plan plan, KeyCommand command) {
        if (plan == null) {
            throw new IllegalArgumentException("policy: key " + command.apiKey() + " has no plan in force, so no policy "
                    + command.policy());
        }
        for (PlanPolicy policy : plan.policies()) {
            if (policy.name().equals(command.policy())) {
                return policy;
            }
        }
        throw new IllegalArgumentException("policy: " + command.policy() + " is not a policy of plan " + plan.id()
                + " of key " + command.apiKey() + " (" + plan.policies().stream().map(PlanPolicy::name)
                .collect(Collectors.joining(", ")) + ")");
    }

    private static KeyState reset(KeyState current, PlanPolicy policy) {
        List<KeyState.Slot> kept = new ArrayList<>(current.slots());
        kept.removeIf(slot -> slot.tag() == policy.tag());
        return current.withSlots(kept);
    }

    private static KeyState grant(KeyState current, PlanPolicy policy, long amount, long now) {
        KeyState.Grant earlier = current.grantOf(policy.tag());
        long before = earlier == null ? 0 : earlier.amount();
        PolicyState granted;
        long total;
        try {
            total = Math.addExact(before, amount);
            granted = policy.limit().grant(current.stateOf(policy.tag()), now, before, amount);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("amount: " + amount + " on top of " + before + " granted is more than policy "
                    + policy.name() + " can count", e);
        }
        List<KeyState.Slot> slots = new ArrayList<>(current.slots());
        slots.removeIf(slot -> slot.tag() == policy.tag());
        slots.add(new KeyState.Slot(policy.tag(), granted));
        return current.withSlots(slots).withGrant(new KeyState.Grant(policy.tag(), total, policy.limit().grantEnd(now)));
    }

    private static KeyState block(KeyState current, KeyCommand command, long now) {
        if (command.until() == null) {
            return current.withBlock(KeyState.BLOCKED_WITHOUT_END);
        }
        long until = command.until().toEpochMilli();
        if (until <= now) {
            throw new IllegalArgumentException("until: " + command.until() + " is not after the key's time "
                    + Instant.ofEpochMilli(now));
        }
        return current.withBlock(until);
    }

    /** What gateways must see for the key at {@code now}: the operator's block, a policy's block, or none. */
    private static Block blockAfter(Plan plan, String apiKey, KeyState state, long now) {
        String planId = plan == null ? null : plan.id();
        if (state != null && state.blockedAt(now)) {
            long until = state.blockedUntil();
            return until == KeyState.BLOCKED_WITHOUT_END ? new Block(apiKey, planId, Reason.BLOCKED, null, null, Verdict.NEVER)
                    : new Block(apiKey, planId, Reason.BLOCKED, null, Instant.ofEpochMilli(until),
                    -Math.floorDiv(-(until - now), 1000L));
        }
        if (plan == null) {
            return null;
        }
        PlanEvaluation probe = QuotaEngine.evaluate(plan, state, now, 1);
        if (probe.allowed() || probe.retryAfterSeconds() == Verdict.NEVER) {
            return null;
        }
        Decision decision = DecisionFactory.of(new RequestEvent(null, apiKey, 1, now), probe);
        return Block.of(decision);
    }
}

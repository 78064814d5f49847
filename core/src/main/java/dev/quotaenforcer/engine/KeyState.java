package dev.quotaenforcer.engine;

import dev.quotaenforcer.limit.PolicyState;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything counted for one API key: the state of each policy of its plan, by tag, and what
 * operators' commands put on it: grants and a block.
 *
 * @param lastSeen     newest event time decided for the key (request or command); later events never run before it
 * @param idleFrom     time from which every policy state, grant and block is as good as none, so the key can be
 *                     forgotten; {@link Long#MAX_VALUE} while blocked without end
 * @param grants       grants in force at {@code lastSeen}, at most one per policy tag; usually none
 * @param blockedUntil when an operator's block ends: {@link #NOT_BLOCKED}, a time after {@code lastSeen},
 *                     or {@link #BLOCKED_WITHOUT_END}
 */
public record KeyState(long lastSeen, long idleFrom, List<Slot> slots, List<Grant> grants, long blockedUntil) {

    /** {@link #blockedUntil} of a key no operator blocked. */
    public static final long NOT_BLOCKED = Long.MIN_VALUE;
    /** {@link #blockedUntil} of a key blocked until unblocked. */
    public static final long BLOCKED_WITHOUT_END = Long.MAX_VALUE;

    /** The state of the policy with this tag. */
    public record Slot(int tag, PolicyState state) {
    }

    /** Extra allowance for the policy with this tag, until {@code until} (exclusive). */
    public record Grant(int tag, long amount, long until) {
    }

    public KeyState {
        slots = List.copyOf(slots);
        grants = List.copyOf(grants);
    }

    /** A state with policy states only: no grant, no block. */
    public KeyState(long lastSeen, long idleFrom, List<Slot> slots) {
        this(lastSeen, idleFrom, slots, List.of(), NOT_BLOCKED);
    }

    /** The state kept for the policy with this tag, or null when there is none. */
    public PolicyState stateOf(int tag) {
        // Indexed, as every loop over these lists per decision: the JIT did not scalar-replace an immutable
        // list's iterator here, so each call (two per policy and decision) allocated one.
        for (int i = 0; i < slots.size(); i++) {
            Slot slot = slots.get(i);
            if (slot.tag() == tag) {
                return slot.state();
            }
        }
        return null;
    }

    /** The grant on the policy with this tag, or null when there is none. */
    public Grant grantOf(int tag) {
        for (int i = 0; i < grants.size(); i++) {
            Grant grant = grants.get(i);
            if (grant.tag() == tag) {
                return grant;
            }
        }
        return null;
    }

    /** Whether an operator's block holds at {@code time}. */
    public boolean blockedAt(long time) {
        return blockedUntil != NOT_BLOCKED && time < blockedUntil;
    }

    /** Whether nothing at all is kept, so the key needs no stored state. */
    public boolean isEmpty() {
        return slots.isEmpty() && grants.isEmpty() && blockedUntil == NOT_BLOCKED;
    }

    /** Whether the state carries anything beyond policy states, which costs bytes only when present. */
    boolean hasCommands() {
        return !grants.isEmpty() || blockedUntil != NOT_BLOCKED;
    }

    /** The state at {@code now} (not before {@link #lastSeen}): grants and a block that have ended are dropped. */
    KeyState at(long now) {
        // Nearly every key has no grant: its list is kept as it is, not copied per decision.
        List<Grant> holding = grants;
        for (int i = 0; i < grants.size(); i++) {
            if (now >= grants.get(i).until()) {
                holding = grants.stream().filter(g -> now < g.until()).toList();
                break;
            }
        }
        return new KeyState(now, Math.max(idleFrom, now), slots, holding, blockedAt(now) ? blockedUntil : NOT_BLOCKED);
    }

    KeyState withSlots(List<Slot> replaced) {
        return new KeyState(lastSeen, idleFrom, replaced, grants, blockedUntil);
    }

    /** The same state with the grant on its tag replaced; the key is kept at least until the grant ends. */
    KeyState withGrant(Grant grant) {
        List<Grant> replaced = new ArrayList<>(grants);
        replaced.removeIf(g -> g.tag() == grant.tag());
        replaced.add(grant);
        return new KeyState(lastSeen, Math.max(idleFrom, grant.until()), slots, replaced, blockedUntil);
    }

    /** The same state blocked until {@code until} (or not, with {@link #NOT_BLOCKED}). */
    KeyState withBlock(long until) {
        return new KeyState(lastSeen, Math.max(idleFrom, until), slots, grants, until);
    }
}

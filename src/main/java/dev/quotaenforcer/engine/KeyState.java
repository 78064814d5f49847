package dev.quotaenforcer.engine;

import dev.quotaenforcer.limit.PolicyState;
import java.util.List;

/**
 * Everything counted for one API key: the state of each policy of its plan, by tag.
 *
 * @param lastSeen newest event time decided for the key; later events never run before it
 * @param idleFrom time from which every policy state is as good as none, so the key can be forgotten
 */
public record KeyState(long lastSeen, long idleFrom, List<Slot> slots) {

    /** The state of the policy with this tag. */
    public record Slot(int tag, PolicyState state) {
    }

    public KeyState {
        slots = List.copyOf(slots);
    }

    /** The state kept for the policy with this tag, or null when there is none. */
    public PolicyState stateOf(int tag) {
        for (Slot slot : slots) {
            if (slot.tag() == tag) {
                return slot.state();
            }
        }
        return null;
    }
}

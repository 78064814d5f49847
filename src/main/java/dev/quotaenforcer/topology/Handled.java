package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.KeyCommand;

/**
 * What a key's task made of one input: a decided request, or an admin command with what the blocks
 * topic holds for its key afterwards (null: a tombstone lifting any block), or why it was not applied.
 */
record Handled(Decided decided, KeyCommand command, Block block, Rejection rejection) {

    static Handled of(Decided decided) {
        return new Handled(decided, null, null, null);
    }

    static Handled applied(KeyCommand command, Block block) {
        return new Handled(null, command, block, null);
    }

    static Handled rejected(KeyCommand command, Rejection rejection) {
        return new Handled(null, command, null, rejection);
    }

    boolean isDecision() {
        return decided != null;
    }

    boolean isAppliedCommand() {
        return command != null && rejection == null;
    }
}

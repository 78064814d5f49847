package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.Reason;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Running counts of decisions by reason, of admin commands applied by type and of dead letters, shared by every stream thread. */
public final class DecisionStats {

    private final Map<Reason, LongAdder> decisions = new EnumMap<>(Reason.class);
    private final LongAdder deadLetters = new LongAdder();
    private final Map<KeyCommand.Type, LongAdder> commands = new EnumMap<>(KeyCommand.Type.class);

    public DecisionStats() {
        for (Reason reason : Reason.values()) {
            decisions.put(reason, new LongAdder());
        }
        for (KeyCommand.Type type : KeyCommand.Type.values()) {
            commands.put(type, new LongAdder());
        }
    }

    void decided(Reason reason) {
        decisions.get(reason).increment();
    }

    void commandApplied(KeyCommand.Type type) {
        commands.get(type).increment();
    }

    void deadLettered() {
        deadLetters.increment();
    }

    /** Decisions so far, by reason. */
    public Map<Reason, Long> decisions() {
        Map<Reason, Long> counts = new EnumMap<>(Reason.class);
        decisions.forEach((reason, count) -> counts.put(reason, count.sum()));
        return counts;
    }

    /** Admin commands applied so far, by type (rejected ones count as dead letters). */
    public Map<KeyCommand.Type, Long> commands() {
        Map<KeyCommand.Type, Long> counts = new EnumMap<>(KeyCommand.Type.class);
        commands.forEach((type, count) -> counts.put(type, count.sum()));
        return counts;
    }

    public long deadLetters() {
        return deadLetters.sum();
    }
}

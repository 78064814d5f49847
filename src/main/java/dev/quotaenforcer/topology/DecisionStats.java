package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Reason;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Running counts of decisions by reason and of dead letters, shared by every stream thread. */
public final class DecisionStats {

    private final Map<Reason, LongAdder> decisions = new EnumMap<>(Reason.class);
    private final LongAdder deadLetters = new LongAdder();

    public DecisionStats() {
        for (Reason reason : Reason.values()) {
            decisions.put(reason, new LongAdder());
        }
    }

    void decided(Reason reason) {
        decisions.get(reason).increment();
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

    public long deadLetters() {
        return deadLetters.sum();
    }
}

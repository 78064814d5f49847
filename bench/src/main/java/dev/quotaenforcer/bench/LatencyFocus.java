package dev.quotaenforcer.bench;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which of the latency scenario's setups and loads a run measures, and in how many rounds of turns: a
 * focused run (one enforcer beside its floor at one load, many rounds) measures one ratio far more
 * closely than a full run's two turns each, in a fraction of its time.
 *
 * @param setups the setup ids to measure ({@link LatencyScenario#SETUPS}); empty for all of a full or quick run's
 * @param loads  the loads to measure, in requests/s; empty for every setup's own (a quick run's below the overload)
 * @param rounds how many times the setups sharing a load take their turns (enforcer, echo, echo, enforcer each
 *               round); a setup measured alone runs one turn per round
 * @param echoIdleTopics how many topics of {@link LatencyScenario#PARTITIONS} partitions, never written, the reply
 *               echo reads beside the requests, as the enforcer's stream thread reads partitions of topics that are
 *               nearly always empty (commands, the re-keying topics, key assignments, the catalogs): 0 for the floor
 *               as it is, 5 for 36 input partitions, about the enforcer's 37
 */
public record LatencyFocus(Set<String> setups, Set<Integer> loads, int rounds, int echoIdleTopics) {

    /** Every setup at its own loads, one round: what a run measures unless told otherwise. */
    public static final LatencyFocus ALL = new LatencyFocus(Set.of(), Set.of(), 1);
    /** The most rounds: 50 at 5k/s keep the enforcer and its floor turning for over ten minutes. */
    static final int MOST_ROUNDS = 50;
    /** The most idle topics the echo reads: 20 give it 126 input partitions. */
    static final int MOST_ECHO_IDLE_TOPICS = 20;
    /**
     * The rounds a full run takes at the target load, where the ratios are judged: with one round, two turns
     * each, a ratio rested on whichever application the machine's worst seconds fell on (1.61x where twelve
     * turns each measured 1.23x, 0.34x where eight measured 1.50x).
     */
    static final int FULL_RUN_TARGET_ROUNDS = 3;

    /** @throws IllegalArgumentException naming a setup or load the scenario has not, or rounds out of range */
    public LatencyFocus {
        List<String> ids = LatencyScenario.SETUPS.stream().map(LatencyScenario.Setup::id).toList();
        for (String setup : setups) {
            if (!ids.contains(setup)) {
                throw new IllegalArgumentException("the latency scenario has no setup " + setup + "; its setups: " + ids);
            }
        }
        for (int load : loads) {
            if (!LatencyScenario.LOADS.contains(load)) {
                throw new IllegalArgumentException("the latency scenario measures no load of " + load + "/s; its loads: "
                        + LatencyScenario.LOADS);
            }
        }
        if (rounds < 1 || rounds > MOST_ROUNDS) {
            throw new IllegalArgumentException("rounds of turns must be 1 to " + MOST_ROUNDS + ", not " + rounds);
        }
        if (echoIdleTopics < 0 || echoIdleTopics > MOST_ECHO_IDLE_TOPICS) {
            throw new IllegalArgumentException("the echo's idle topics must be 0 to " + MOST_ECHO_IDLE_TOPICS + ", not "
                    + echoIdleTopics);
        }
        setups = Collections.unmodifiableSet(new TreeSet<>(setups));
        loads = Collections.unmodifiableSet(new TreeSet<>(loads));
    }

    /** The setups, loads and rounds, with a floor that reads no idle topics. */
    public LatencyFocus(Set<String> setups, Set<Integer> loads, int rounds) {
        this(setups, loads, rounds, 0);
    }

    /** Whether a run measures {@code setup}: named, or, with none named, any but the tunings in a quick run. */
    boolean measures(LatencyScenario.Setup setup, boolean quick) {
        return setups.isEmpty() ? !quick || !setup.tuning() : setups.contains(setup.id());
    }

    /** Whether a run measures {@code load}: named, or, with none named, any but the overload in a quick run. */
    boolean measures(int load, boolean quick) {
        return loads.isEmpty() ? !quick || load <= LatencyScenario.TARGET_LOAD : loads.contains(load);
    }

    /**
     * How many rounds of turns {@code sharing} setups take at {@code load}: this focus's own, but in a full run
     * {@link #FULL_RUN_TARGET_ROUNDS} where an enforcer and its floor share the target load.
     */
    int rounds(int load, int sharing, boolean quick) {
        return all() && !quick && load == LatencyScenario.TARGET_LOAD && sharing > 1 ? FULL_RUN_TARGET_ROUNDS : rounds;
    }

    /** Whether this is {@link #ALL}'s choice of setups, loads and rounds. */
    boolean all() {
        return equals(ALL);
    }
}

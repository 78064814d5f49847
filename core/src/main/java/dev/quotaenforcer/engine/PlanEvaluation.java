package dev.quotaenforcer.engine;

import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import java.util.List;

/**
 * One request decided against every policy of a plan.
 *
 * @param decidedAt the event time used: never earlier than the key's newest event
 * @param verdicts  one per policy of the plan, in plan order; none when an operator's block denied it
 * @param binding   index of the binding policy: the one that denied longest, else least remaining; -1 when blocked
 * @param state     the key's state to store
 */
public record PlanEvaluation(Plan plan, long decidedAt, boolean allowed, List<PolicyVerdict> verdicts, int binding,
                             KeyState state) {

    /** A policy and its verdict on the request. */
    public record PolicyVerdict(PlanPolicy policy, Verdict verdict) {
    }

    public PlanEvaluation {
        verdicts = List.copyOf(verdicts);
    }

    /** Whether an operator's block denied the request, without asking the policies. */
    public boolean blocked() {
        return state.blockedAt(decidedAt);
    }

    public PolicyVerdict bindingVerdict() {
        return verdicts.get(binding);
    }

    /** Seconds after which this request would pass every policy; {@link Verdict#NEVER} if never. */
    public long retryAfterSeconds() {
        if (blocked()) {
            long until = state.blockedUntil();
            return until == KeyState.BLOCKED_WITHOUT_END ? Verdict.NEVER : -Math.floorDiv(-(until - decidedAt), 1000L);
        }
        long retryAfter = 0;
        // Indexed loops, as in KeyState: asked per decision.
        for (int i = 0; i < verdicts.size(); i++) {
            PolicyVerdict v = verdicts.get(i);
            long seconds = v.verdict().retryAfterSeconds();
            if (seconds == Verdict.NEVER) {
                return Verdict.NEVER;
            }
            retryAfter = Math.max(retryAfter, seconds);
        }
        return retryAfter;
    }

    public long delayMs() {
        long delay = 0;
        for (int i = 0; i < verdicts.size(); i++) {
            PolicyVerdict v = verdicts.get(i);
            delay = Math.max(delay, v.verdict().delayMs());
        }
        return delay;
    }
}

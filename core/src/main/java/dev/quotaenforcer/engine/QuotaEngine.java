package dev.quotaenforcer.engine;

import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.PolicyOutcome;
import dev.quotaenforcer.limit.PolicyState;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.Plan;
import dev.quotaenforcer.plan.PlanPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides a request against all policies of its key's plan. A request is allowed only if every
 * policy allows it; an allowed request consumes its cost from every policy, a denied one consumes
 * nothing (a denying policy only records that a run of denials has started). A grant raises its
 * policy's allowance until it ends; a key an operator blocked is denied without asking any policy.
 */
public final class QuotaEngine {

    private QuotaEngine() {
    }

    /**
     * @param previous the key's stored state, or null for a key with none
     */
    public static PlanEvaluation evaluate(Plan plan, KeyState previous, long eventTime, long cost) {
        long now = previous == null ? eventTime : Math.max(eventTime, previous.lastSeen());
        KeyState current = previous == null ? new KeyState(now, now, List.of()) : previous.at(now);
        if (current.blockedAt(now)) {
            // Blocked by an operator: no policy is asked and nothing is consumed.
            return new PlanEvaluation(plan, now, false, List.of(), -1, current);
        }
        List<PlanPolicy> policies = plan.policies();
        int count = policies.size();
        // Arrays, each made into a list once: the records' own copies then keep the list they are given.
        PlanEvaluation.PolicyVerdict[] verdicts = new PlanEvaluation.PolicyVerdict[count];
        PolicyOutcome[] outcomes = new PolicyOutcome[count];
        boolean allowed = true;
        for (int i = 0; i < count; i++) {
            PlanPolicy policy = policies.get(i);
            KeyState.Grant grant = current.grantOf(policy.tag());
            PolicyState state = current.stateOf(policy.tag());
            PolicyOutcome outcome = grant == null ? policy.limit().decide(state, now, cost)
                    : policy.limit().decide(state, now, cost, grant.amount(), grant.until());
            outcomes[i] = outcome;
            verdicts[i] = new PlanEvaluation.PolicyVerdict(policy, outcome.verdict());
            allowed &= outcome.verdict().allowed();
        }
        KeyState.Slot[] slots = new KeyState.Slot[count];
        int kept = 0;
        long idleFrom = now;
        for (int i = 0; i < count; i++) {
            PlanPolicy policy = policies.get(i);
            PolicyOutcome outcome = outcomes[i];
            KeyState.Grant grant = current.grantOf(policy.tag());
            // On a denial the policies that would have admitted consume nothing: their state only moves to now.
            PolicyState next = allowed || !outcome.verdict().allowed() ? outcome.state()
                    : policy.limit().raisedBy(grant == null ? 0 : grant.amount()).advance(current.stateOf(policy.tag()), now);
            if (next != null) {
                slots[kept++] = new KeyState.Slot(policy.tag(), next);
                idleFrom = Math.max(idleFrom, policy.limit().idleFrom(next));
            }
        }
        List<KeyState.Grant> grants = current.grants();
        for (int i = 0; i < grants.size(); i++) {
            idleFrom = Math.max(idleFrom, grants.get(i).until());
        }
        List<PlanEvaluation.PolicyVerdict> verdictList = List.of(verdicts);
        return new PlanEvaluation(plan, now, allowed, verdictList, binding(verdictList, allowed),
                new KeyState(now, idleFrom, List.of(kept == count ? slots : Arrays.copyOf(slots, kept)), current.grants(),
                        KeyState.NOT_BLOCKED));
    }

    /**
     * Where a key stands against every policy of its plan at {@code time} (never before its newest
     * decided event), without deciding anything: used, remaining and reset per policy, a grant in
     * force counted in its policy's limit.
     *
     * @param state the key's stored state, or null for a key with none
     */
    public static List<PolicyStanding> standings(Plan plan, KeyState state, long time) {
        long now = state == null ? time : Math.max(time, state.lastSeen());
        KeyState current = state == null ? new KeyState(now, now, List.of()) : state.at(now);
        List<PolicyStanding> standings = new ArrayList<>(plan.policies().size());
        for (PlanPolicy policy : plan.policies()) {
            KeyState.Grant grant = current.grantOf(policy.tag());
            LimitPolicy limit = grant == null ? policy.limit() : policy.limit().raisedBy(grant.amount());
            standings.add(new PolicyStanding(policy, limit.standing(current.stateOf(policy.tag()), now)));
        }
        return standings;
    }

    /** The denying policy that holds the request back longest, else the one with least remaining. */
    private static int binding(List<PlanEvaluation.PolicyVerdict> verdicts, boolean allowed) {
        int binding = -1;
        for (int i = 0; i < verdicts.size(); i++) {
            Verdict v = verdicts.get(i).verdict();
            if (!allowed && v.allowed()) {
                continue;
            }
            if (binding < 0 || binds(v, verdicts.get(binding).verdict(), allowed)) {
                binding = i;
            }
        }
        return binding;
    }

    private static boolean binds(Verdict candidate, Verdict current, boolean allowed) {
        if (allowed) {
            return candidate.remaining() < current.remaining();
        }
        if (current.retryAfterSeconds() == Verdict.NEVER) {
            return false;
        }
        return candidate.retryAfterSeconds() == Verdict.NEVER
                || candidate.retryAfterSeconds() > current.retryAfterSeconds();
    }
}

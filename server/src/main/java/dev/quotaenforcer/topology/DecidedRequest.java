package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import java.util.List;

/**
 * The output of deciding one request: the decision, the quota-exceeded events it opened, where the
 * gateway waits for it (null when it reads the decisions topic).
 *
 * @param late     the dead letter of a request decided at the lateness bound, else null
 * @param repeated whether this is the original decision of a request re-sent with the same id: answered
 *                 again, counted nothing, opening nothing
 */
public record DecidedRequest(Decision decision, List<QuotaExceeded> exceeded, ReplyAddress replyTo, Rejection late,
                             boolean repeated) {

    /** A fresh decision. */
    public DecidedRequest(Decision decision, List<QuotaExceeded> exceeded, ReplyAddress replyTo, Rejection late) {
        this(decision, exceeded, replyTo, late, false);
    }

    /** The original decision of a request re-sent with its id, answered to where the re-sent one waits. */
    static DecidedRequest repeated(Decision original, ReplyAddress replyTo) {
        return new DecidedRequest(original, List.of(), replyTo, null, true);
    }

    /**
     * The block this decision starts: when it opens a run of denials that waiting can end. A cost
     * no policy can ever admit blocks nothing; the key's other requests may still pass.
     */
    Block block() {
        if (repeated || exceeded.isEmpty() || decision.allowed() || decision.retryAfterSeconds() <= 0) {
            return null;
        }
        return Block.of(decision);
    }

    /**
     * Whether the plan's policies made it (allowed, rate limited or over quota), as against a rejection
     * or block: such a decision counts as usage of the plan and is remembered under its request id.
     */
    boolean isPolicyDecision() {
        return isPolicyDecision(decision);
    }

    static boolean isPolicyDecision(Decision decision) {
        return decision.reason() == Reason.OK || decision.reason() == Reason.RATE_LIMITED
                || decision.reason() == Reason.QUOTA_EXCEEDED;
    }
}

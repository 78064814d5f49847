package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.ReplyAddress;
import java.util.List;

/**
 * The output of deciding one request: the decision, the quota-exceeded events it opened, where the
 * gateway waits for it (null when it reads the decisions topic), and the request's cost.
 */
public record Decided(Decision decision, List<QuotaExceeded> exceeded, ReplyAddress replyTo, long cost) {

    /** Whether a plan's policies decided it, so it counts as usage of the plan. */
    boolean counted() {
        return decision.reason() == Reason.OK || decision.reason() == Reason.RATE_LIMITED
                || decision.reason() == Reason.QUOTA_EXCEEDED;
    }
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.ReplyAddress;
import java.util.List;

/**
 * The output of deciding one request: the decision, the quota-exceeded events it opened, and where
 * the gateway waits for it (null when it reads the decisions topic).
 */
public record Decided(Decision decision, List<QuotaExceeded> exceeded, ReplyAddress replyTo) {
}

package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.ReplyAddress;

/**
 * A request record the intake could not take: its dead letter, and an INVALID_REQUEST decision when
 * the request id and API key could be read, so the gateway is not left waiting (null otherwise).
 */
record UnreadableRequest(Rejection rejection, Decision answer, ReplyAddress answerTo) {
}

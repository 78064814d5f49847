package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.ReplyAddress;
import dev.quotaenforcer.event.RequestEvent;

/**
 * What the intake made of one request record: a request to decide (and whether it already sits on
 * its key's partition), or a rejection, with an INVALID_REQUEST decision when the request id and
 * API key could be read, so the gateway is not left waiting.
 */
public record Intake(RequestEvent request, boolean placed, Rejection rejection, Decision answer, ReplyAddress answerTo) {

    static Intake accepted(RequestEvent request, boolean placed) {
        return new Intake(request, placed, null, null, null);
    }

    static Intake rejected(Rejection rejection, Decision answer, ReplyAddress answerTo) {
        return new Intake(null, false, rejection, answer, answerTo);
    }

    boolean isAccepted() {
        return request != null;
    }
}

package dev.quotaenforcer.engine;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.Verdict;
import dev.quotaenforcer.plan.PolicyKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Turns an evaluation into what is published: the decision and any quota-exceeded events. */
public final class Decisions {

    private Decisions() {
    }

    public static Decision of(RequestEvent request, Evaluation evaluation) {
        Decision decision;
        if (evaluation.blocked()) {
            decision = new Decision(request.requestId(), request.apiKey(), evaluation.plan().id(), false, Reason.BLOCKED, null,
                    0, 0, 0, evaluation.retryAfterSeconds(), 0, Instant.ofEpochMilli(evaluation.decidedAt()), Map.of());
        } else {
            Evaluation.PolicyVerdict binding = evaluation.bindingVerdict();
            Verdict verdict = binding.verdict();
            Reason reason = evaluation.allowed() ? Reason.OK
                    : binding.policy().kind() == PolicyKind.QUOTA ? Reason.QUOTA_EXCEEDED : Reason.RATE_LIMITED;
            decision = new Decision(request.requestId(), request.apiKey(), evaluation.plan().id(), evaluation.allowed(),
                    reason, binding.policy().name(), verdict.limit(), verdict.remaining(), verdict.resetSeconds(),
                    evaluation.allowed() ? 0 : evaluation.retryAfterSeconds(), evaluation.allowed() ? evaluation.delayMs() : 0,
                    Instant.ofEpochMilli(evaluation.decidedAt()), Map.of());
        }
        return decision.withHeaders(RateLimitHeaders.of(evaluation.plan(), decision));
    }

    /** One event per policy whose denial opens a new run (or, for fixed windows, a new window). */
    public static List<QuotaExceeded> exceeded(RequestEvent request, Evaluation evaluation) {
        List<QuotaExceeded> events = new ArrayList<>(1);
        long now = evaluation.decidedAt();
        for (Evaluation.PolicyVerdict v : evaluation.verdicts()) {
            if (!v.verdict().denialStarted()) {
                continue;
            }
            LimitPolicy limit = v.policy().limit();
            Instant windowStart = null;
            Instant windowEnd = null;
            if (limit.algorithm() == Algorithm.FIXED_WINDOW) {
                long start = Math.floorDiv(now, limit.windowMs()) * limit.windowMs();
                windowStart = Instant.ofEpochMilli(start);
                windowEnd = Instant.ofEpochMilli(start + limit.windowMs());
            } else if (limit.algorithm().windowed()) {
                windowStart = Instant.ofEpochMilli(now - limit.windowMs());
                windowEnd = Instant.ofEpochMilli(now);
            }
            events.add(new QuotaExceeded(request.apiKey(), evaluation.plan().id(), limit.name(), v.policy().kind(),
                    limit.limit(), windowStart, windowEnd, request.requestId(), Instant.ofEpochMilli(now)));
        }
        return events;
    }
}

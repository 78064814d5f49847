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

/** Builds what is published from a plan evaluation: the decision and any quota-exceeded events. */
public final class DecisionFactory {

    private DecisionFactory() {
    }

    public static Decision of(RequestEvent request, PlanEvaluation evaluation) {
        Instant decidedAt = Instant.ofEpochMilli(evaluation.decidedAt());
        if (evaluation.blocked()) {
            return new Decision(request.requestId(), request.apiKey(), evaluation.plan().id(), false, Reason.BLOCKED, null,
                    0, 0, 0, evaluation.retryAfterSeconds(), 0, decidedAt, RateLimitHeaders.of(evaluation.plan(), false,
                            Reason.BLOCKED, null, 0, 0, 0, evaluation.retryAfterSeconds()));
        }
        PlanEvaluation.PolicyVerdict binding = evaluation.bindingVerdict();
        Verdict verdict = binding.verdict();
        boolean allowed = evaluation.allowed();
        Reason reason = allowed ? Reason.OK
                : binding.policy().kind() == PolicyKind.QUOTA ? Reason.QUOTA_EXCEEDED : Reason.RATE_LIMITED;
        String policy = binding.policy().name();
        long retryAfter = allowed ? 0 : evaluation.retryAfterSeconds();
        return new Decision(request.requestId(), request.apiKey(), evaluation.plan().id(), allowed, reason, policy,
                verdict.limit(), verdict.remaining(), verdict.resetSeconds(), retryAfter, allowed ? evaluation.delayMs() : 0,
                decidedAt, RateLimitHeaders.of(evaluation.plan(), allowed, reason, policy, verdict.limit(), verdict.remaining(),
                        verdict.resetSeconds(), retryAfter));
    }

    /** One event per policy whose denial opens a new run (or, for fixed windows, a new window). */
    public static List<QuotaExceeded> exceeded(RequestEvent request, PlanEvaluation evaluation) {
        // Nearly every decision starts no denial: no list is made for it.
        List<QuotaExceeded> events = List.of();
        long now = evaluation.decidedAt();
        List<PlanEvaluation.PolicyVerdict> verdicts = evaluation.verdicts();
        for (int i = 0; i < verdicts.size(); i++) {
            PlanEvaluation.PolicyVerdict v = verdicts.get(i);
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
            if (events.isEmpty()) {
                events = new ArrayList<>(1);
            }
            events.add(new QuotaExceeded(request.apiKey(), evaluation.plan().id(), limit.name(), v.policy().kind(),
                    limit.limit(), windowStart, windowEnd, request.requestId(), Instant.ofEpochMilli(now)));
        }
        return events;
    }
}

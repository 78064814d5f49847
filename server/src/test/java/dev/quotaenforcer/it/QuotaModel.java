package dev.quotaenforcer.it;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The fault suite's oracle: what one key's plan decides, written from the algorithms' definitions
 * and nothing of the production code. A plan is sliding-window-log and fixed-window policies, the
 * quota last. A request is allowed when every policy admits its cost, and then every policy counts
 * it; a denial counts nothing. A key's clock never goes back: each request is decided at the later
 * of its event time and the key's previous decision.
 */
final class QuotaModel {

    /** Retry-After of a request larger than the policy can ever admit. */
    static final long NEVER = -1;

    /** One policy of a plan: {@code log} is a sliding window log, else a fixed window aligned to the epoch. */
    record Policy(String name, boolean log, boolean quota, long limit, long windowMs) {
    }

    /** A plan: its id and its policies, the quota (if any) last. */
    record Plan(String id, List<Policy> policies) {

        long quotaLimit() {
            Policy last = policies.get(policies.size() - 1);
            return last.quota() ? last.limit() : 0;
        }

        /** The plan as the enforcer's plan JSON. */
        String json() {
            StringBuilder rates = new StringBuilder();
            String quota = "";
            for (Policy policy : policies) {
                String body = "{\"name\": \"" + policy.name() + "\", \"algorithm\": \""
                        + (policy.log() ? "sliding-window-log" : "fixed-window") + "\", \"limit\": " + policy.limit()
                        + ", \"window\": \"PT" + policy.windowMs() / 1000 + "S\"}";
                if (policy.quota()) {
                    quota = ", \"quota\": " + body;
                } else {
                    rates.append(rates.isEmpty() ? "" : ", ").append(body);
                }
            }
            return "{\"id\": \"" + id + "\", \"rateLimits\": [" + rates + "]" + quota + "}";
        }
    }

    /** What the model decides for one request. */
    record Verdict(boolean allowed, String reason, String policy, long remaining, long retryAfterSeconds, long timeMs,
                   List<String> exceededPolicies) {
    }

    private final Plan plan;
    private final List<Object> states = new ArrayList<>();
    private long clock = Long.MIN_VALUE;

    QuotaModel(Plan plan) {
        this.plan = plan;
        for (Policy policy : plan.policies()) {
            states.add(policy.log() ? new Log() : new Window());
        }
    }

    /** The state of a sliding window log: admitted requests still in the window, oldest first. */
    private static final class Log {
        final Deque<long[]> entries = new ArrayDeque<>();
        long total;
        boolean denying;
    }

    /** The state of a fixed window: its start and what it admitted. */
    private static final class Window {
        long start = Long.MIN_VALUE;
        long used;
        boolean denying;
    }

    /** Decides the key's next request, in the order the key's requests were decided. */
    Verdict decide(long eventTimeMs, long cost) {
        long now = clock == Long.MIN_VALUE ? eventTimeMs : Math.max(clock, eventTimeMs);
        clock = now;
        int n = plan.policies().size();
        boolean[] admits = new boolean[n];
        long[] remainingIfDenied = new long[n];
        long[] retryAfterMs = new long[n];
        boolean allowed = true;
        for (int i = 0; i < n; i++) {
            Policy policy = plan.policies().get(i);
            long used;
            if (policy.log()) {
                Log log = (Log) states.get(i);
                // An entry admitted at x counts during [x, x + window).
                while (!log.entries.isEmpty() && log.entries.peekFirst()[0] + policy.windowMs() <= now) {
                    log.total -= log.entries.pollFirst()[1];
                }
                used = log.total;
                retryAfterMs[i] = cost > policy.limit() ? NEVER : logRetryAfter(policy, log, now, cost);
            } else {
                Window window = (Window) states.get(i);
                long start = Math.floorDiv(now, policy.windowMs()) * policy.windowMs();
                if (start != window.start) {
                    window.start = start;
                    window.used = 0;
                    window.denying = false;
                }
                used = window.used;
                retryAfterMs[i] = cost > policy.limit() ? NEVER : window.start + policy.windowMs() - now;
            }
            admits[i] = cost <= policy.limit() - used;
            remainingIfDenied[i] = Math.max(0, policy.limit() - used);
            allowed &= admits[i];
        }
        List<String> exceeded = new ArrayList<>();
        long[] remaining = new long[n];
        for (int i = 0; i < n; i++) {
            Policy policy = plan.policies().get(i);
            if (allowed) {
                if (policy.log()) {
                    Log log = (Log) states.get(i);
                    log.entries.addLast(new long[] {now, cost});
                    log.total += cost;
                    log.denying = false;
                    remaining[i] = policy.limit() - log.total;
                } else {
                    Window window = (Window) states.get(i);
                    // A fixed window reports one run of denials per window, however many admissions it holds.
                    window.used += cost;
                    remaining[i] = policy.limit() - window.used;
                }
            } else if (!admits[i]) {
                remaining[i] = remainingIfDenied[i];
                if (!denying(i)) {
                    exceeded.add(policy.name());
                    setDenying(i);
                }
            }
        }
        int binding = -1;
        for (int i = 0; i < n; i++) {
            if (allowed) {
                if (binding < 0 || remaining[i] < remaining[binding]) {
                    binding = i;
                }
            } else if (!admits[i]) {
                if (binding < 0 || bindsLonger(seconds(retryAfterMs[i]), seconds(retryAfterMs[binding]))) {
                    binding = i;
                }
            }
        }
        Policy bound = plan.policies().get(binding);
        String reason = allowed ? "OK" : bound.quota() ? "QUOTA_EXCEEDED" : "RATE_LIMITED";
        return new Verdict(allowed, reason, bound.name(), remaining[binding], allowed ? 0 : seconds(retryAfterMs[binding]),
                now, exceeded);
    }

    /** Of two denials, whether {@code candidate} holds the request back longer than {@code current}; never is longest. */
    private static boolean bindsLonger(long candidate, long current) {
        if (current == NEVER) {
            return false;
        }
        return candidate == NEVER || candidate > current;
    }

    /** When enough of the oldest entries have left the window for {@code cost} to fit. */
    private static long logRetryAfter(Policy policy, Log log, long now, long cost) {
        long excess = log.total + cost - policy.limit();
        if (excess <= 0) {
            return 0;
        }
        long freed = 0;
        for (long[] entry : log.entries) {
            freed += entry[1];
            if (freed >= excess) {
                return entry[0] + policy.windowMs() - now;
            }
        }
        throw new IllegalStateException("a cost within the limit always fits once the log empties");
    }

    private static long seconds(long ms) {
        return ms == NEVER ? NEVER : Math.max(0, Math.floorDiv(ms + 999, 1000));
    }

    private boolean denying(int i) {
        Object state = states.get(i);
        return state instanceof Log log ? log.denying : ((Window) state).denying;
    }

    private void setDenying(int i) {
        Object state = states.get(i);
        if (state instanceof Log log) {
            log.denying = true;
        } else {
            ((Window) state).denying = true;
        }
    }
}

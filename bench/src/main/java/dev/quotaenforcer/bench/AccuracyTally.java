package dev.quotaenforcer.bench;

import dev.quotaenforcer.limit.Algorithm;
import dev.quotaenforcer.limit.LimitPolicy;
import dev.quotaenforcer.limit.PolicyOutcome;
import dev.quotaenforcer.limit.PolicyState;
import dev.quotaenforcer.limit.RequestLog;
import java.time.Duration;
import java.util.Arrays;

/**
 * Replays keys' requests through the sliding window counter and the exact sliding window log with the
 * same limit, and counts where they disagree, two ways.
 *
 * <p>Misjudged: each counter decision is checked against the exact log holding what the counter
 * itself admitted so far, i.e. what an exact limiter would have said about the same history. This is
 * the error of the approximation alone, the figure comparable to Cloudflare's. A false allow is a
 * request the counter admitted that the exact rule would have denied; a false deny the reverse.
 *
 * <p>Decided differently: the counter and the log each run alone on the trace. After their first
 * disagreement they hold different histories, so this also counts the drift that follows.
 */
public final class AccuracyTally {

    /** A request arriving while the exact window already holds this share of the limit is "near the limit". */
    static final double NEAR = 0.9;

    private final LimitPolicy counter;
    private final LimitPolicy log;
    private long keys;
    private long requests;
    private long counterAllowed;
    private long falseAllows;
    private long falseDenies;
    private long logAllowed;
    private long counterOnlyAllowed;
    private long logOnlyAllowed;
    private long nearLimit;
    private long nearLimitMisjudged;
    private long keysOverLimit;
    private long counterMaxWindow;
    private long logMaxWindow;

    public AccuracyTally(long limit, Duration window) {
        this.counter = LimitPolicy.window("counter", Algorithm.SLIDING_WINDOW_COUNTER, limit, window);
        this.log = LimitPolicy.window("log", Algorithm.SLIDING_WINDOW_LOG, limit, window);
    }

    public long limit() {
        return counter.limit();
    }

    public long windowMs() {
        return counter.windowMs();
    }

    /** Decides one key's requests (in time order, cost 1 each) from a fresh state under both limiters. */
    public void replay(long[] times) {
        keys++;
        PolicyState counterState = null;
        PolicyState shadowState = null;
        PolicyState logState = null;
        long[] counterAdmitted = new long[times.length];
        long[] logAdmitted = new long[times.length];
        int counterCount = 0;
        int logCount = 0;
        for (long time : times) {
            requests++;
            PolicyOutcome byCounter = counter.decide(counterState, time, 1);
            PolicyOutcome byShadow = log.decide(shadowState, time, 1);
            PolicyOutcome byLog = log.decide(logState, time, 1);
            boolean counterAllows = byCounter.verdict().allowed();
            boolean exactAllows = byShadow.verdict().allowed();
            boolean near = shadowState != null
                    && ((RequestLog) log.advance(shadowState, time)).total() >= NEAR * log.limit();
            counterState = byCounter.state();
            shadowState = counterAllows == exactAllows ? byShadow.state()
                    : counterAllows ? admitted(log.advance(shadowState, time), time) : log.advance(shadowState, time);
            logState = byLog.state();
            if (near) {
                nearLimit++;
            }
            if (counterAllows) {
                counterAllowed++;
                counterAdmitted[counterCount++] = time;
            }
            if (counterAllows != exactAllows) {
                if (counterAllows) {
                    falseAllows++;
                } else {
                    falseDenies++;
                }
                if (near) {
                    nearLimitMisjudged++;
                }
            }
            if (byLog.verdict().allowed()) {
                logAllowed++;
                logAdmitted[logCount++] = time;
                if (!counterAllows) {
                    logOnlyAllowed++;
                }
            } else if (counterAllows) {
                counterOnlyAllowed++;
            }
        }
        long counterMax = maxInWindow(counterAdmitted, counterCount, windowMs());
        counterMaxWindow = Math.max(counterMaxWindow, counterMax);
        logMaxWindow = Math.max(logMaxWindow, maxInWindow(logAdmitted, logCount, windowMs()));
        if (counterMax > limit()) {
            keysOverLimit++;
        }
    }

    /** The exact log with a request the counter admitted over it appended, so the log keeps the counter's history. */
    private static RequestLog admitted(PolicyState advanced, long time) {
        RequestLog log = (RequestLog) advanced;
        long[] times = Arrays.copyOf(log.times(), log.size() + 1);
        long[] costs = Arrays.copyOf(log.costs(), log.size() + 1);
        times[log.size()] = time;
        costs[log.size()] = 1;
        return new RequestLog(times, costs, time, log.denying());
    }

    /**
     * The most admitted requests in any sliding window: a request at x counts during [x, x + W), the
     * log's own rule, so the count at each admission is what an exact limiter would have seen.
     */
    static long maxInWindow(long[] admitted, int count, long windowMs) {
        long max = 0;
        int oldest = 0;
        for (int newest = 0; newest < count; newest++) {
            while (admitted[oldest] <= admitted[newest] - windowMs) {
                oldest++;
            }
            max = Math.max(max, newest - oldest + 1);
        }
        return max;
    }

    public long keys() {
        return keys;
    }

    public long requests() {
        return requests;
    }

    public long counterAllowed() {
        return counterAllowed;
    }

    /** Requests the counter admitted that the exact rule, on the counter's own history, would have denied. */
    public long falseAllows() {
        return falseAllows;
    }

    /** Requests the counter denied that the exact rule, on the counter's own history, would have admitted. */
    public long falseDenies() {
        return falseDenies;
    }

    public long misjudged() {
        return falseAllows + falseDenies;
    }

    public long logAllowed() {
        return logAllowed;
    }

    /** With each limiter alone on the trace: requests only the counter admitted. */
    public long counterOnlyAllowed() {
        return counterOnlyAllowed;
    }

    /** With each limiter alone on the trace: requests only the log admitted. */
    public long logOnlyAllowed() {
        return logOnlyAllowed;
    }

    public long decidedDifferently() {
        return counterOnlyAllowed + logOnlyAllowed;
    }

    /** Requests that arrived while the exact window of the counter's history was at least {@link #NEAR} full. */
    public long nearLimit() {
        return nearLimit;
    }

    public long nearLimitMisjudged() {
        return nearLimitMisjudged;
    }

    public long keysOverLimit() {
        return keysOverLimit;
    }

    /** The most requests the counter admitted in any window of any key. */
    public long counterMaxWindow() {
        return counterMaxWindow;
    }

    /** The same for the log running alone; never above the limit, or the log would not be exact. */
    public long logMaxWindow() {
        return logMaxWindow;
    }
}

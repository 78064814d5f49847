package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's hourly usage, counted into its keys' entries ({@link KeyEntry}) as it decides, and what
 * of it is due at the next usage write: the key hours whose figures changed, and the task's share of
 * each plan's hour, kept up to date as each decision moves a key's figure.
 *
 * <p>Counting is exact: every decision's figure is in the entry the decision writes, committed with
 * it. Writing is what the interval paces, so a busy key costs one usage record per interval instead
 * of one per commit. Each figure carries the number of the write due to take it out, and the task
 * keeps the number of its last completed write beside its entries, committed with them: on restart,
 * the figures with a later number are the ones a crash kept from being written. Marking them costs
 * one record per write, not one per figure. A figure whose number is the next write's is already due,
 * so counting into it needs no look at what is due.
 *
 * <p>Nothing is kept per key between writes but its place in a list of due key hours, by the handle
 * ({@code K}) the task finds the key's entry by. A key's objects held for the interval (its hour, the
 * figure its plan's share held, a map entry) outlived the young collection that came before the
 * write and were copied by it: about a third of what the enforcer's collections copied for the first
 * time at 5k requests/s (docs/bench/history.md).
 *
 * <p>An hour is closed once it ends by the deciding task's watermark, before which the task decides
 * nothing more, so no decision comes too late for its hour. The first write after an hour closed
 * takes out the last of its figures and its plan shares; from then on ({@link #closedBefore}) its
 * figures may leave the entries, and the plan shares are recomputed from the entries on restart
 * without them.
 */
final class UsageLedger<K> {

    private static final Logger LOG = LoggerFactory.getLogger(UsageLedger.class);
    private static final int FIRST_DUE_CAPACITY = 64;

    private final String task;
    /** The key hours counted since the last write, in the order first counted: the next write takes their figures out of the entries. */
    private Object[] dueKeys = new Object[FIRST_DUE_CAPACITY];
    private long[] dueHours = new long[FIRST_DUE_CAPACITY];
    private int due;
    private final Map<IdHour, Share> planShares = new HashMap<>();
    /** The shares changed since the last write, in the order first changed. */
    private final List<Share> changedShares = new ArrayList<>();
    /** The share last counted into: a decision moves its own plan's share of its hour, nearly always the last one's. */
    private Share lastShare;
    /** The handle of a key whose entry the task read as it started. */
    private final Function<String, K> handles;
    /** The number of the next write: every figure counted now goes out with it. */
    private long nextWrite;
    /** Hours starting before this were closed at a completed write: written in full, plan shares too. */
    private long closedBefore;

    /**
     * @param lastWrite    the number of the task's last completed write (0 for none)
     * @param closedBefore the start of the first hour not closed at that write (Long.MIN_VALUE for none)
     * @param handles      the handle of an API key, for the figures {@link #restore} finds due
     */
    UsageLedger(String task, long lastWrite, long closedBefore, Function<String, K> handles) {
        this.task = task;
        this.handles = handles;
        this.nextWrite = lastWrite + 1;
        this.closedBefore = closedBefore;
    }

    /**
     * Takes in a stored entry's figures as the task starts: each counts towards its plan's share, and
     * those counted after the last completed write are due.
     */
    void restore(String apiKey, KeyEntry entry) {
        for (KeyEntry.Hour hour : entry.hours()) {
            if (hour.hourMs() < closedBefore) {
                continue;
            }
            share(hour.plan(), hour.hourMs()).add(hour, 1);
            if (hour.write() >= nextWrite) {
                due(handles.apply(apiKey), hour.hourMs());
            }
        }
    }

    /**
     * The figure of {@code delta}'s hour with one decision's usage ({@code delta}) counted into the entry's,
     * the entry of the key whose handle is {@code key}.
     */
    KeyEntry.Hour count(K key, KeyEntry entry, KeyUsage delta) {
        long hourMs = delta.hour().toEpochMilli();
        KeyEntry.Hour before = entry.hour(hourMs, delta.plan());
        // Counted on the entry's own figure: a key's figure is made a KeyUsage once per write, not per decision.
        KeyEntry.Hour after = before == null ? KeyEntry.Hour.of(delta, nextWrite) : before.plus(delta, nextWrite);
        if (before == null || before.write() < nextWrite) {
            // Listed once per write: a figure already due is listed, and the write reads it from the entry then.
            due(key, hourMs);
        }
        if (before != null) {
            // The whole figure moves when the key's plan changed; its plan's share is written even when it
            // comes back as it was.
            share(before.plan(), hourMs).add(before, -1);
        }
        share(after.plan(), hourMs).add(after, 1);
        return after;
    }

    /**
     * Sends what changed since the last write, as {@code entries} hold it now by the keys' handles: each
     * figure to {@code keys}, each plan share to {@code plans}; hours starting before {@code firstOpenHour}
     * are closed by this write. Returns whether the write numbers to keep beside the entries
     * ({@link #lastWrite}, {@link #closedBefore}) moved.
     *
     * @param apiKeys the API key of a handle
     */
    @SuppressWarnings("unchecked")
    boolean write(long firstOpenHour, Function<K, KeyEntry> entries, Function<K, String> apiKeys, Consumer<KeyUsage> keys,
                  Consumer<PlanUsagePart> plans) {
        boolean moved = false;
        if (due > 0) {
            for (int i = 0; i < due; i++) {
                K key = (K) dueKeys[i];
                String apiKey = apiKeys.apply(key);
                KeyEntry entry = entries.apply(key);
                KeyEntry.Hour latest = entry == null ? null : entry.hour(dueHours[i]);
                if (latest == null) {
                    // Only a bug could take a figure due from its entry: nothing is left to write of it.
                    LOG.error("Usage of key {} in hour {} was counted but is no longer in its entry", apiKey,
                            Instant.ofEpochMilli(dueHours[i]));
                } else {
                    keys.accept(latest.usage(apiKey));
                }
                dueKeys[i] = null;
            }
            due = 0;
            // An idle task writes nothing, not even its write's number.
            nextWrite++;
            moved = true;
        }
        for (Share share : changedShares) {
            share.changed = false;
            plans.accept(new PlanUsagePart(task, share.usage()));
        }
        changedShares.clear();
        if (firstOpenHour > closedBefore) {
            closedBefore = firstOpenHour;
            planShares.keySet().removeIf(planHour -> planHour.hourMs() < firstOpenHour);
            lastShare = null;
            moved = true;
        }
        return moved;
    }

    long lastWrite() {
        return nextWrite - 1;
    }

    long closedBefore() {
        return closedBefore;
    }

    private void due(K key, long hourMs) {
        if (due == dueKeys.length) {
            dueKeys = Arrays.copyOf(dueKeys, 2 * due);
            dueHours = Arrays.copyOf(dueHours, 2 * due);
        }
        dueKeys[due] = key;
        dueHours[due] = hourMs;
        due++;
    }

    /** The plan's share of the hour, marked changed: the next write sends it. */
    private Share share(String plan, long hourMs) {
        Share share = lastShare;
        if (share == null || share.hourMs != hourMs || !share.plan.equals(plan)) {
            share = planShares.computeIfAbsent(new IdHour(plan, hourMs), planHour -> new Share(plan, hourMs));
            lastShare = share;
        }
        if (!share.changed) {
            share.changed = true;
            changedShares.add(share);
        }
        return share;
    }

    /** A plan's share of an hour: its keys' figures summed as {@link PlanUsage#with(KeyUsage, int)} sums them. */
    private static final class Share {
        private final String plan;
        private final long hourMs;
        private long activeKeys;
        private long allowed;
        private long denied;
        private long keysOverQuota;
        private boolean changed;

        Share(String plan, long hourMs) {
            this.plan = plan;
            this.hourMs = hourMs;
        }

        /** Counts a key's figure in ({@code sign} 1) or takes it out again ({@code sign} -1). */
        void add(KeyEntry.Hour figure, int sign) {
            activeKeys += sign;
            allowed += sign * figure.allowed();
            denied += sign * figure.denied();
            keysOverQuota += figure.quotaDenied() > 0 ? sign : 0;
        }

        PlanUsage usage() {
            return new PlanUsage(plan, Instant.ofEpochMilli(hourMs), activeKeys, allowed, denied, keysOverQuota);
        }
    }

    /**
     * A plan's hour, as plan shares are kept (no text formatting per lookup). Its equality is written out:
     * a record's own ran through method handles the JIT did not inline, 2% to 3% of the stream thread's
     * samples for one lookup per decision.
     */
    private record IdHour(String id, long hourMs) {
        @Override
        public boolean equals(Object other) {
            return other instanceof IdHour that && hourMs == that.hourMs && id.equals(that.id);
        }

        @Override
        public int hashCode() {
            return 31 * id.hashCode() + Long.hashCode(hourMs);
        }
    }
}

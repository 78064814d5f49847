package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's hourly usage, counted into its keys' entries ({@link KeyEntry}) as it decides, and what
 * of it is due at the next usage write: the figures that changed, per key, and the task's share of
 * each plan's hour that changed. A plan's share takes in a key's change once per write, from the
 * figure the key had at the write before, rather than once per decision.
 *
 * <p>Counting is exact: every decision's figure is in the entry the decision writes, committed with
 * it. Writing is what the interval paces, so a busy key costs one usage record per interval instead
 * of one per commit. Each figure carries the number of the write due to take it out, and the task
 * keeps the number of its last completed write beside its entries, committed with them: on restart,
 * the figures with a later number are the ones a crash kept from being written. Marking them costs
 * one record per write, not one per figure. A figure whose number is the next write's is already due,
 * so counting into it needs no look at what is due.
 *
 * <p>An hour is closed once it ends by the deciding task's watermark, before which the task decides
 * nothing more, so no decision comes too late for its hour. The first write after an hour closed
 * takes out the last of its figures and its plan shares; from then on ({@link #closedBefore}) its
 * figures may leave the entries, and the plan shares are recomputed from the entries on restart
 * without them.
 */
final class UsageLedger {

    private static final Logger LOG = LoggerFactory.getLogger(UsageLedger.class);

    private final String task;
    /** Key hours counted since the last write: the next write takes their figures out of the entries. */
    private final Map<IdHour, Change> unwritten = new LinkedHashMap<>();
    private final Map<IdHour, PlanUsage> planShares = new HashMap<>();
    private final Set<IdHour> changedPlanShares = new LinkedHashSet<>();
    /** The number of the next write: every figure counted now goes out with it. */
    private long nextWrite;
    /** Hours starting before this were closed at a completed write: written in full, plan shares too. */
    private long closedBefore;

    /**
     * @param lastWrite    the number of the task's last completed write (0 for none)
     * @param closedBefore the start of the first hour not closed at that write (Long.MIN_VALUE for none)
     */
    UsageLedger(String task, long lastWrite, long closedBefore) {
        this.task = task;
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
            addToPlanShare(hour.usage(apiKey), 1);
            if (hour.write() >= nextWrite) {
                // Already in its plan's share, which the first write sends in full.
                unwritten.put(new IdHour(apiKey, hour.hourMs()), new Change(hour));
            }
        }
    }

    /** The figure of {@code delta}'s hour with one decision's usage ({@code delta}) counted into the entry's. */
    KeyEntry.Hour count(KeyEntry entry, KeyUsage delta) {
        long hourMs = delta.hour().toEpochMilli();
        KeyEntry.Hour before = entry.hour(hourMs, delta.plan());
        // Counted on the entry's own figure: a key's figure is made a KeyUsage once per write, not per decision.
        KeyEntry.Hour after = before == null ? KeyEntry.Hour.of(delta, nextWrite) : before.plus(delta, nextWrite);
        boolean dueAlready = before != null && before.write() == nextWrite;
        if (!dueAlready || !Objects.equals(before.plan(), after.plan())) {
            // A figure already due is in the map and the write reads it from the entries: a busy key costs
            // no lookup per decision (a cache miss at 100k keys), only when its plan changes.
            IdHour keyHour = new IdHour(delta.apiKey(), hourMs);
            Change change = unwritten.get(keyHour);
            if (change == null) {
                unwritten.put(keyHour, new Change(before));
            } else if (before != null) {
                change.leave(before.plan());
            }
        }
        return after;
    }

    /**
     * Sends what changed since the last write, as {@code entries} hold it now: each figure to
     * {@code keys}, each plan share to {@code plans}; hours starting before {@code firstOpenHour} are
     * closed by this write. Returns whether the write numbers to keep beside the entries
     * ({@link #lastWrite}, {@link #closedBefore}) moved.
     */
    boolean write(long firstOpenHour, Function<String, KeyEntry> entries, Consumer<KeyUsage> keys,
                  Consumer<PlanUsagePart> plans) {
        boolean moved = false;
        if (!unwritten.isEmpty()) {
            for (Map.Entry<IdHour, Change> unwrittenFigure : unwritten.entrySet()) {
                IdHour keyHour = unwrittenFigure.getKey();
                String apiKey = keyHour.id();
                Change change = unwrittenFigure.getValue();
                KeyEntry entry = entries.apply(apiKey);
                KeyEntry.Hour latest = entry == null ? null : entry.hour(keyHour.hourMs());
                if (latest == null) {
                    // Only a bug could take a figure due from its entry: nothing is left to write of it.
                    LOG.error("Usage of key {} in hour {} was counted but is no longer in its entry", apiKey,
                            Instant.ofEpochMilli(keyHour.hourMs()));
                    continue;
                }
                KeyUsage latestUsage = latest.usage(apiKey);
                keys.accept(latestUsage);
                if (!latest.equals(change.written)) {
                    if (change.written != null) {
                        addToPlanShare(change.written.usage(apiKey), -1);
                    }
                    addToPlanShare(latestUsage, 1);
                }
                for (String plan : change.left) {
                    if (!plan.equals(latest.plan()) && (change.written == null || !plan.equals(change.written.plan()))) {
                        // A plan the key was on only between writes: its share is written too, as it stands.
                        IdHour planHour = new IdHour(plan, latest.hourMs());
                        planShares.putIfAbsent(planHour, PlanUsage.none(plan, latestUsage.hour()));
                        changedPlanShares.add(planHour);
                    }
                }
            }
            unwritten.clear();
            // An idle task writes nothing, not even its write's number.
            nextWrite++;
            moved = true;
        }
        for (IdHour planHour : changedPlanShares) {
            plans.accept(new PlanUsagePart(task, planShares.get(planHour)));
        }
        changedPlanShares.clear();
        if (firstOpenHour > closedBefore) {
            closedBefore = firstOpenHour;
            planShares.keySet().removeIf(planHour -> planHour.hourMs() < firstOpenHour);
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

    private void addToPlanShare(KeyUsage usage, int sign) {
        IdHour planHour = new IdHour(usage.plan(), usage.hour().toEpochMilli());
        PlanUsage share = planShares.get(planHour);
        planShares.put(planHour, (share == null ? PlanUsage.none(usage.plan(), usage.hour()) : share).with(usage, sign));
        changedPlanShares.add(planHour);
    }

    /**
     * A key's hour since the last write: the figure its plan's share holds ({@code written}, null for
     * none), and the plans its figure left since (rare: a key's plan changed).
     */
    private static final class Change {
        private final KeyEntry.Hour written;
        private List<String> left = List.of();

        Change(KeyEntry.Hour written) {
            this.written = written;
        }

        void leave(String plan) {
            if (plan != null && !left.contains(plan)) {
                left = new ArrayList<>(left);
                left.add(plan);
            }
        }
    }

    /**
     * An API key's or a plan's hour, as unwritten figures and plan shares are kept (no text formatting
     * per decision). Its equality is written out: a record's own ran through method handles the JIT did
     * not inline, 2% to 3% of the stream thread's samples for one lookup per decision.
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

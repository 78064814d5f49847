package dev.quotaenforcer.topology;

import dev.quotaenforcer.engine.DecisionFactory;
import dev.quotaenforcer.engine.KeyCommands;
import dev.quotaenforcer.engine.KeyState;
import dev.quotaenforcer.engine.PlanEvaluation;
import dev.quotaenforcer.engine.QuotaEngine;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.RequestEvent;
import dev.quotaenforcer.plan.InvalidPlanException;
import dev.quotaenforcer.plan.Plan;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.Set;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides each request against its key's plan and counts it into the key's hourly usage, keeping one
 * compact entry per API key ({@link KeyEntry}: limiter state and open hours' figures) in a RocksDB
 * store backed by a changelog topic, and writes the usage that changed once per usage interval
 * ({@link UsageLedger}).
 *
 * <p>The task's clock is the newest record timestamp it has decided: the broker's append time
 * ({@code message.timestamp.type=LogAppendTime} on the requests topic), which no producer sets and a
 * replay sees again. A request is decided at its own event time, but never earlier than the
 * task's lateness bound, {@code clock - maxLateness}, nor earlier than the watermark the task has
 * swept to. Keys whose every window has passed by that watermark are deleted by a stream-time
 * punctuator, and the watermark is kept in a store committed with them. So a deletion is never seen:
 * every later request of a deleted key is decided at or after the watermark, where its old state
 * and no state decide alike. What the bound costs is stated on the request it moves: a request
 * later than the bound (a gateway's lagging clock, or a re-keyed record held back by a failover
 * upstream) is decided at the bound and dead-lettered as {@code LATE_REQUEST}.
 *
 * <p>Admin commands of a key arrive at the same task, from the co-partitioned commands topic, and
 * are applied to the same store between the key's requests ({@link KeyCommands}), so each takes
 * effect exactly once and in one order with the requests around it. A command that cannot apply
 * (a policy its plan lacks, say) is dead-lettered with the reason. Commands do not move the clock:
 * they are operators' events, and a key they touched is kept until its grant or block ends anyway.
 */
final class QuotaProcessor implements Processor<String, KeyInput, String, Object> {

    /** The per-task store of key entries: API key to {@link KeyEntry}. */
    static final String STATE_STORE = "quota-state";
    /** The per-task store of the watermark swept to and the usage writes completed, under the keys below. */
    static final String WATERMARK_STORE = "quota-watermark";
    private static final String SWEPT_TO = "swept-to";
    private static final String LAST_USAGE_WRITE = "usage-write";
    private static final String USAGE_CLOSED_BEFORE = "usage-closed-before";
    /** The child each key's usage figure goes to, as the usage interval writes it. */
    static final String KEY_USAGE = "usage-sink";
    /**
     * The child the task's plan shares go to, as the usage interval writes them: the first node of their
     * repartition, named by Kafka Streams after the repartition (a forward to a child that is not there fails every topology test).
     */
    static final String PLAN_USAGE_SHARE = Topics.PLAN_USAGE_SHARES.name() + "-repartition-filter";
    /** The error of the dead letter a request later than the lateness bound leaves. */
    static final String LATE_REQUEST = "LATE_REQUEST";

    private static final Logger LOG = LoggerFactory.getLogger(QuotaProcessor.class);

    private final String defaultPlan;
    private final long expiryIntervalMs;
    private final long maxLatenessMs;
    private final long dedupWindowMs;
    private final int defaultPlanMaxKeys;
    private final long usageIntervalMs;
    private final DecisionStats stats;
    private final PlanCache plans;
    private final AssignmentCache assignments;
    /** The plan catalog's bytes by id, as {@link #plans} reads them. */
    private Function<String, byte[]> planCatalogBytes;
    /** Entries of this task with a limiter state: what the default plan's key cap counts. */
    private long keysWithState;
    private RequestIds requestIds;
    /** The task's usage, its keys by their slots in {@link #entries}. */
    private UsageLedger<WriteBackStore.Slot<String>> usage;
    /** Newest record timestamp of a request this task decided since it started. */
    private long clock = Long.MIN_VALUE;
    /** The watermark swept to: no state of a key idle by then is kept, so nothing is decided before it. */
    private long sweptTo = Long.MIN_VALUE;
    private ProcessorContext<String, Object> context;
    private OutcomePublisher outcomes;
    private KeyValueStore<String, KeyEntry> states;
    /** {@link #states} itself, whose slots a decision reads and writes its key's entry by, its assignment noted on it. */
    private WriteBackStore<String, KeyEntry> entries;
    /** The keys {@link #states} may hold: a key it cannot hold is not looked up in it. */
    private StoredKeys storedKeys;
    private final Predicate<String> mayBeStored = apiKey -> storedKeys.mayHold(apiKey);
    private KeyValueStore<String, Long> watermark;
    /** The key catalog's plan id for an API key, or null. */
    private Function<String, String> catalogPlanIds;

    QuotaProcessor(DecisionStats stats, CatalogChanges planChanges, CatalogChanges assignmentChanges, String defaultPlan,
                   long expiryIntervalMs, long maxLatenessMs, long dedupWindowMs, int defaultPlanMaxKeys, long usageIntervalMs) {
        this.stats = stats;
        this.plans = new PlanCache(planChanges);
        this.assignments = new AssignmentCache(assignmentChanges);
        this.defaultPlan = defaultPlan;
        this.defaultPlanMaxKeys = defaultPlan == null ? 0 : defaultPlanMaxKeys;
        this.expiryIntervalMs = expiryIntervalMs;
        this.maxLatenessMs = maxLatenessMs;
        this.dedupWindowMs = dedupWindowMs;
        this.usageIntervalMs = usageIntervalMs;
    }

    /** Supplies the processor together with the stores it owns. */
    static ProcessorSupplier<String, KeyInput, String, Object> supplier(DecisionStats stats, CatalogChanges planChanges,
                                                                      CatalogChanges assignmentChanges,
                                                                      String defaultPlan,
                                                                      long expiryIntervalMs,
                                                                      long maxLatenessMs, long dedupWindowMs,
                                                                      int defaultPlanMaxKeys, long usageIntervalMs,
                                                                      Map<String, String> batchChangelogConfig) {
        return new ProcessorSupplier<>() {
            @Override
            public Processor<String, KeyInput, String, Object> get() {
                return new QuotaProcessor(stats, planChanges, assignmentChanges, defaultPlan, expiryIntervalMs, maxLatenessMs, dedupWindowMs, defaultPlanMaxKeys,
                        usageIntervalMs);
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                StoreBuilder<KeyValueStore<String, KeyEntry>> store = BatchChangelogStore.builder(STATE_STORE, Serdes.String(),
                        new KeyEntrySerde()).withLoggingEnabled(batchChangelogConfig);
                Set<StoreBuilder<?>> stores = new HashSet<>(RequestIds.storeBuilders(batchChangelogConfig));
                stores.add(WriteBackStore.builder(store, KeyEntry.PACKING));
                stores.add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(WATERMARK_STORE), Serdes.String(),
                        Serdes.Long()));
                return stores;
            }
        };
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
        this.context = context;
        this.outcomes = new OutcomePublisher(stats, context);
        this.states = context.getStateStore(STATE_STORE);
        this.entries = WriteBackStore.of(states);
        TimestampedKeyValueStore<String, byte[]> planCatalog = context.getStateStore(QuotaTopology.PLAN_CATALOG_STORE);
        this.planCatalogBytes = planId -> valueOf(planCatalog.get(planId));
        TimestampedKeyValueStore<String, String> keyCatalog = context.getStateStore(QuotaTopology.KEY_CATALOG_STORE);
        this.catalogPlanIds = apiKey -> valueOf(keyCatalog.get(apiKey));
        this.watermark = context.getStateStore(WATERMARK_STORE);
        this.requestIds = new RequestIds(context.getStateStore(RequestIds.STORE), context.getStateStore(RequestIds.COMMANDS_STORE),
                dedupWindowMs);
        // Kafka Streams initializes the same processor again when it revives its task from the changelog:
        // what it kept in memory then belongs to state that may have been rolled back, so it starts from the stores.
        clock = Long.MIN_VALUE;
        Long stored = watermark.get(SWEPT_TO);
        sweptTo = stored == null ? Long.MIN_VALUE : stored;
        Long lastWrite = watermark.get(LAST_USAGE_WRITE);
        Long closedBefore = watermark.get(USAGE_CLOSED_BEFORE);
        usage = new UsageLedger<>(context.taskId().toString(), lastWrite == null ? 0 : lastWrite,
                closedBefore == null ? Long.MIN_VALUE : closedBefore, entries::slot);
        keysWithState = 0;
        storedKeys = new StoredKeys(states.approximateNumEntries());
        try (KeyValueIterator<String, KeyEntry> all = states.all()) {
            while (all.hasNext()) {
                KeyValue<String, KeyEntry> entry = all.next();
                if (entry.value != null) {
                    keysWithState += entry.value.hasState() ? 1 : 0;
                    usage.restore(entry.key, entry.value);
                    storedKeys.add(entry.key);
                }
            }
        }
        context.schedule(Duration.ofMillis(expiryIntervalMs), PunctuationType.STREAM_TIME, this::expireIdleKeys);
        // Once at the task's phase, then once per interval, Kafka Streams keeping the phase: each punctuation
        // also halves how many records the stream thread takes from each task between its checks, so a
        // punctuator asked more often whether the write was due cost every decision something.
        Cancellable[] first = new Cancellable[1];
        first[0] = context.schedule(Duration.ofMillis(UsageWriteSchedule.firstDelayMs(usageIntervalMs, context.taskId().partition())),
                PunctuationType.WALL_CLOCK_TIME, now -> {
                    first[0].cancel();
                    context.schedule(Duration.ofMillis(usageIntervalMs), PunctuationType.WALL_CLOCK_TIME, this::writeUsage);
                    writeUsage(now);
                });
    }

    @Override
    public void process(Record<String, KeyInput> record) {
        if (record.value() instanceof KeyInput.Request input) {
            answer(record, input.request());
        } else if (record.value() instanceof KeyInput.Command input) {
            apply(record, input.command());
        }
    }

    /** Answers a request: a retry with its original decision, any other with a decision at its time or the lateness bound. */
    private void answer(Record<String, KeyInput> record, RequestEvent request) {
        clock = Math.max(clock, record.timestamp());
        byte[] id = RequestIds.requestKey(request.apiKey(), request.requestId());
        Decision original = requestIds.original(id, request, record.timestamp(), this::plan);
        if (original != null) {
            // A retry: the gateway gets the answer it may have missed, and nothing is counted twice.
            outcomes.decided(record, DecidedRequest.repeated(original, request.replyTo()));
            return;
        }
        long bound = bound();
        Rejection late = request.timestamp() < bound ? late(request, bound) : null;
        DecidedRequest decided = decide(request, Math.max(request.timestamp(), bound), late);
        if (decided.isPolicyDecision()) {
            requestIds.remember(id, decided.decision(), record.timestamp());
        }
        // The output keeps the request record's timestamp, which the broker already accepted: the event
        // time in the JSON is the gateway's and may lie outside what the broker admits.
        outcomes.decided(record, decided);
    }

    private DecidedRequest decide(RequestEvent request, long time, Rejection late) {
        WriteBackStore.Slot<String> slot = entries.slot(request.apiKey());
        String assigned = assignedPlan(slot);
        String planId = assigned == null ? defaultPlan : assigned;
        if (planId == null) {
            return rejected(request, null, Reason.UNKNOWN_API_KEY, time, late);
        }
        Plan plan = plan(planId);
        if (plan == null) {
            return rejected(request, planId, Reason.UNKNOWN_PLAN, time, late);
        }
        KeyEntry entry = entries.value(slot, mayBeStored);
        KeyState stored = stateOf(request.apiKey(), entry);
        if (stored == null && assigned == null && defaultPlanMaxKeys > 0 && keysWithState >= defaultPlanMaxKeys) {
            // A flood of unknown keys would otherwise take memory for each: the default plan admits new keys
            // only while the task holds fewer than the cap; assigned keys are always admitted.
            return rejected(request, null, Reason.UNKNOWN_API_KEY, time, late);
        }
        PlanEvaluation evaluation = QuotaEngine.evaluate(plan, stored, time, request.cost());
        Decision decision = DecisionFactory.of(request, evaluation);
        KeyEntry previous = entry == null ? KeyEntry.of(null) : entry;
        KeyEntry.Hour figure = null;
        if (DecidedRequest.isPolicyDecision(decision)) {
            KeyUsage delta = KeyUsage.of(decision, request.cost(), plan.quotaLimit());
            // Only a crash under at-least-once can bring back a decision in an hour already closed: not counted again.
            if (delta.hour().toEpochMilli() >= firstOpenHour()) {
                figure = usage.count(slot, previous, delta);
            }
        }
        entries.put(slot, previous.with(evaluation.state(), figure));
        if (entry == null) {
            storedKeys.add(request.apiKey());
        }
        if (stored == null) {
            keysWithState++;
        }
        return new DecidedRequest(decision, DecisionFactory.exceeded(request, evaluation), request.replyTo(), late);
    }

    /** The start of the earliest hour that does not end by the watermark: the hour it falls in. */
    private long firstOpenHour() {
        return sweptTo == Long.MIN_VALUE ? Long.MIN_VALUE : Math.floorDiv(sweptTo, KeyEntry.HOUR_MS) * KeyEntry.HOUR_MS;
    }

    /** The earliest time anything may be decided or applied at now. */
    private long bound() {
        return clock == Long.MIN_VALUE ? sweptTo : Math.max(sweptTo, clock - maxLatenessMs);
    }

    /** The dead letter of a request decided at the lateness bound rather than at its own, earlier time. */
    private Rejection late(RequestEvent request, long bound) {
        String reason = "event time " + Instant.ofEpochMilli(request.timestamp()) + " is " + (bound - request.timestamp())
                + " ms before the lateness bound " + Instant.ofEpochMilli(bound) + " (the task's newest record at "
                + Instant.ofEpochMilli(clock) + " less " + maxLatenessMs + " ms, or the watermark its idle keys were"
                + " deleted by); decided at the bound";
        return new Rejection(LATE_REQUEST, reason, request.apiKey().getBytes(StandardCharsets.UTF_8),
                Topics.REKEYED.valueSerde().serializer().serialize(null, request), new RecordHeaders());
    }

    /**
     * Applies a command at its record's time (never before the lateness bound), once per command id;
     * the key's plan is needed by reset and grant of a policy only.
     */
    private void apply(Record<String, KeyInput> record, KeyCommand command) {
        long recordTime = record.timestamp();
        if (command.commandId() != null) {
            Long appliedAt = requestIds.commandApplied(command.apiKey(), command.commandId(), recordTime);
            if (appliedAt != null) {
                notApplied(record, command, "DUPLICATE_COMMAND", "command " + command.commandId()
                        + " was applied to this key at " + Instant.ofEpochMilli(appliedAt) + "; a command id applies once");
                return;
            }
        }
        WriteBackStore.Slot<String> slot = entries.slot(command.apiKey());
        String planId = planIdOf(slot);
        Plan plan = planId == null ? null : plan(planId);
        KeyEntry entry = entries.value(slot, mayBeStored);
        KeyState stored = stateOf(command.apiKey(), entry);
        KeyCommands.Applied applied = KeyCommands.apply(plan, stored, command, Math.max(recordTime, bound()));
        if (applied instanceof KeyCommands.Applied.NotApplicable notApplicable) {
            notApplied(record, command, "COMMAND_NOT_APPLICABLE", notApplicable.problem());
        } else if (applied instanceof KeyCommands.Applied.Done done) {
            if (command.commandId() != null) {
                requestIds.rememberCommand(command.apiKey(), command.commandId(), recordTime);
            }
            KeyEntry updated = entry == null ? KeyEntry.of(done.state()) : entry.withState(done.state());
            if (updated.isEmpty()) {
                entries.put(slot, null);
            } else {
                entries.put(slot, updated);
                if (entry == null) {
                    storedKeys.add(command.apiKey());
                }
            }
            keysWithState += (done.state() == null ? 0 : 1) - (stored == null ? 0 : 1);
            LOG.info("Applied {} command {} of {} to key {}: {}", command.type().id(), command.commandId(), command.issuer(),
                    command.apiKey(), command);
            outcomes.applied(record, command, done.block());
        }
    }

    private void notApplied(Record<String, KeyInput> record, KeyCommand command, String error, String problem) {
        LOG.warn("Not applying {} command {} of {} to key {}: {}", command.type().id(), command.commandId(),
                command.issuer(), command.apiKey(), problem);
        byte[] json = Topics.REKEYED_COMMAND.valueSerde().serializer().serialize(null, command);
        outcomes.notApplied(record, new Rejection(error, problem, command.apiKey().getBytes(StandardCharsets.UTF_8), json,
                new RecordHeaders()));
    }

    /** The slot's key's assigned plan id, else the default plan's, else null. */
    private String planIdOf(WriteBackStore.Slot<String> slot) {
        String planId = assignedPlan(slot);
        return planId == null ? defaultPlan : planId;
    }

    /** The plan id the slot's key is assigned to in the catalog, or null. */
    private String assignedPlan(WriteBackStore.Slot<String> slot) {
        return assignments.planId(slot, catalogPlanIds);
    }

    /** The plan in the catalog, or null when it is not there or this version cannot read it. */
    private Plan plan(String planId) {
        try {
            return plans.plan(planId, planCatalogBytes);
        } catch (InvalidPlanException e) {
            LOG.error("Plan {} in the catalog cannot be read by this version: {}", planId, e.getMessage());
            return null;
        }
    }

    private static KeyState stateOf(String apiKey, KeyEntry entry) {
        if (entry == null) {
            return null;
        }
        try {
            return entry.state();
        } catch (IllegalArgumentException e) {
            // Only a bug or a downgrade can cause this; counting afresh beats stopping every key of the task.
            LOG.error("Discarding unreadable state of key {}: {}", apiKey, e.getMessage());
            return null;
        }
    }

    private DecidedRequest rejected(RequestEvent request, String plan, Reason reason, long time, Rejection late) {
        return new DecidedRequest(Decision.rejected(request.requestId(), request.apiKey(), plan, reason, time),
                List.of(), request.replyTo(), late);
    }

    private void expireIdleKeys(long streamTime) {
        if (clock == Long.MIN_VALUE || clock - maxLatenessMs <= sweptTo) {
            return;
        }
        long idleBefore = clock - maxLatenessMs;
        // Committed with the deletions: after a restart nothing is decided before it either.
        sweptTo = idleBefore;
        watermark.put(SWEPT_TO, sweptTo);
        // The sweep reads every key of the task's store: its cost grows with the active keys, so operators may time it.
        long startNanos = System.nanoTime();
        long scanned = 0;
        List<KeyValue<String, KeyEntry>> changed = new ArrayList<>();
        // The keys that stay, without those deleted since the task started: so the filters do not only grow.
        StoredKeys staying = new StoredKeys(states.approximateNumEntries());
        try (KeyValueIterator<String, KeyEntry> all = states.all()) {
            while (all.hasNext()) {
                KeyValue<String, KeyEntry> entry = all.next();
                scanned++;
                KeyEntry swept = swept(entry.value, idleBefore, usage.closedBefore());
                if (swept != null) {
                    staying.add(entry.key);
                }
                if (entry.value == null || swept != entry.value) {
                    changed.add(KeyValue.pair(entry.key, swept));
                    if (entry.value != null && entry.value.hasState() && (swept == null || !swept.hasState())) {
                        keysWithState--;
                    }
                }
            }
        }
        storedKeys = staying;
        long deleted = 0;
        for (KeyValue<String, KeyEntry> change : changed) {
            if (change.value == null) {
                states.delete(change.key);
                deleted++;
            } else {
                states.put(change.key, change.value);
            }
        }
        // The state benchmark reads this line (EnforcerLogLines): keep its first part as it is.
        LOG.debug("Expiry sweep of task {}: {} keys scanned, {} deleted in {} us ({} trimmed)", context.taskId(), scanned,
                deleted, (System.nanoTime() - startNanos) / 1000, changed.size() - deleted);
    }

    /**
     * The entry without what the sweep lets go: its state once idle by the watermark, and its figures
     * of hours that start before {@code closedBefore} (closed at a completed usage write). The same
     * entry when nothing goes; null when all of it does.
     */
    private static KeyEntry swept(KeyEntry entry, long idleBefore, long closedBefore) {
        if (entry == null) {
            return null;
        }
        boolean idle = entry.hasState() && isIdle(entry, idleBefore);
        boolean closedHours = entry.hours().stream().anyMatch(hour -> hour.hourMs() < closedBefore);
        if (!idle && !closedHours) {
            return entry;
        }
        KeyEntry swept = idle ? entry.withState(null) : entry;
        if (closedHours) {
            swept = swept.withHours(entry.hours().stream().filter(hour -> hour.hourMs() >= closedBefore).toList());
        }
        return swept.isEmpty() ? null : swept;
    }

    private static boolean isIdle(KeyEntry entry, long idleBefore) {
        try {
            return entry.idleFrom() <= idleBefore;
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    /** The usage interval's write: figures and plan shares that changed, and the write's numbers beside them. */
    private void writeUsage(long now) {
        // The write holds up every decision of the task's thread while it runs: timed, as the expiry sweep is.
        long startNanos = System.nanoTime();
        long[] written = new long[2];
        boolean moved = usage.write(firstOpenHour(), entries::current, WriteBackStore.Slot::key,
                keyUsage -> {
                    written[0]++;
                    context.forward(new Record<>(QuotaTopology.hourKey(keyUsage.apiKey(), keyUsage.hour()), keyUsage, now),
                            KEY_USAGE);
                },
                share -> {
                    written[1]++;
                    context.forward(new Record<>(QuotaTopology.hourKey(share.usage().plan(), share.usage().hour()), share, now),
                            PLAN_USAGE_SHARE);
                });
        if (moved) {
            watermark.put(LAST_USAGE_WRITE, usage.lastWrite());
            watermark.put(USAGE_CLOSED_BEFORE, usage.closedBefore());
        }
        LOG.debug("Usage write of task {}: {} key figures and {} plan shares in {} us", context.taskId(), written[0], written[1],
                (System.nanoTime() - startNanos) / 1000);
    }

    private static <V> V valueOf(ValueAndTimestamp<V> value) {
        return value == null ? null : value.value();
    }
}

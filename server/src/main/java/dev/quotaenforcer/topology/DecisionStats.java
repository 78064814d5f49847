package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.Reason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The topology's own meters, shared by every stream thread: decisions by plan and reason,
 * quota-exceeded events, admin commands applied, dead letters, and the decision lag (from the request record's timestamp
 * to the decision being produced; the transaction that publishes it commits up to one commit
 * interval later), timed for a sample of the decisions.
 */
public final class DecisionStats {

    /** Tag value for decisions made before any plan was known (unknown key, invalid request). */
    static final String NO_PLAN = "none";

    private final MeterRegistry registry;
    private final Clock clock;
    private final Timer lag;
    /** Per plan, a counter per reason (by ordinal): looked up on every decision without building a key. */
    private final Map<String, AtomicReferenceArray<Counter>> decisions = new ConcurrentHashMap<>();
    private final Map<String, Counter> exceeded = new ConcurrentHashMap<>();
    private final Map<String, Counter> deadLetters = new ConcurrentHashMap<>();
    private final Map<KeyCommand.Type, Counter> commands = new ConcurrentHashMap<>();

    /** Meters in a registry of their own, lag measured on the system clock. */
    public DecisionStats() {
        this(new SimpleMeterRegistry(), Clock.systemUTC());
    }

    public DecisionStats(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        this.lag = Timer.builder("quota.decision.lag")
                .description("From the request record's timestamp to its decision being produced")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(1))
                .register(registry);
    }

    /** Counts a decision and, if {@code timeLag}, times its lag: callers sample the lag at high rates. */
    void decided(Decision decision, long requestTimestamp, boolean timeLag) {
        String plan = decision.plan() == null ? NO_PLAN : decision.plan();
        AtomicReferenceArray<Counter> byReason = decisions.computeIfAbsent(plan,
                name -> new AtomicReferenceArray<>(Reason.values().length));
        Reason reason = decision.reason();
        Counter counter = byReason.get(reason.ordinal());
        if (counter == null) {
            // Registering is idempotent: two threads racing here get the same counter.
            counter = Counter.builder("quota.decisions")
                    .description("Decisions made, by plan and reason")
                    .tag("plan", plan).tag("reason", reason.name())
                    .register(registry);
            byReason.set(reason.ordinal(), counter);
        }
        counter.increment();
        if (timeLag) {
            lag.record(Math.max(0, clock.millis() - requestTimestamp), TimeUnit.MILLISECONDS);
        }
    }

    void commandApplied(KeyCommand.Type type) {
        commands.computeIfAbsent(type, name -> Counter.builder("quota.commands.applied")
                .description("Admin commands applied, by type")
                .tag("type", type.name())
                .register(registry)).increment();
    }

    void exceeded(QuotaExceeded event) {
        exceeded.computeIfAbsent(event.plan() + '\u0000' + event.policy(), name -> Counter.builder("quota.exceeded.events")
                .description("Quota-exceeded events published: a run of denials started")
                .tag("plan", event.plan()).tag("policy", event.policy()).tag("kind", event.kind().name())
                .register(registry)).increment();
    }

    void deadLettered(String source) {
        deadLetters.computeIfAbsent(source, name -> Counter.builder("quota.dead.letters")
                .description("Records sent to the dead-letter topic, by the input they came from")
                .tag("source", source)
                .register(registry)).increment();
    }

    /** Decisions so far, by reason, over every plan. */
    public Map<Reason, Long> decisions() {
        Map<Reason, Long> counts = new EnumMap<>(Reason.class);
        for (Reason reason : Reason.values()) {
            counts.put(reason, 0L);
        }
        registry.find("quota.decisions").counters().forEach(counter -> counts.merge(
                Reason.valueOf(counter.getId().getTag("reason")), (long) counter.count(), Long::sum));
        return counts;
    }

    /** Decisions so far, of every reason and plan. */
    public long decided() {
        return decisions().values().stream().mapToLong(Long::longValue).sum();
    }

    /** Admin commands applied so far, by type (rejected ones count as dead letters). */
    public Map<KeyCommand.Type, Long> commands() {
        Map<KeyCommand.Type, Long> counts = new EnumMap<>(KeyCommand.Type.class);
        for (KeyCommand.Type type : KeyCommand.Type.values()) {
            counts.put(type, 0L);
        }
        commands.forEach((type, count) -> counts.put(type, (long) count.count()));
        return counts;
    }

    public long deadLetters() {
        return (long) registry.find("quota.dead.letters").counters().stream().mapToDouble(Counter::count).sum();
    }
}

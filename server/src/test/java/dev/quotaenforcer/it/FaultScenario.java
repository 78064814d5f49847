package dev.quotaenforcer.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * One fault test's world: its topics, two plans, keys produced keyed, unkeyed and misplaced, the
 * enforcer JVMs it starts, the steady load and a watch on the committed decisions. The test applies
 * its faults; {@link #finish} stops the load and every instance and has {@link FaultVerifier} judge.
 */
final class FaultScenario implements AutoCloseable {

    static final int PARTITIONS = 6;
    static final int KEYS = 30;
    static final int RATE_PER_SECOND = 150;
    /**
     * How long the group waits for a silent member before moving its tasks: 6 s in the default suite (the
     * broker's least), to fit CI's budget, and Kafka's default of 45 s in the soak
     * ({@code -Dfault.session.timeout.ms}).
     */
    static final Duration SESSION_TIMEOUT = Duration.ofMillis(Long.getLong("fault.session.timeout.ms", 6_000));

    /** A sliding window log of 15 per 10 s under an hourly quota no run reaches. */
    static final QuotaModel.Plan LOG_PLAN = new QuotaModel.Plan("fault-log", List.of(
            new QuotaModel.Policy("burst", true, false, 15, 10_000),
            new QuotaModel.Policy("hourly", false, true, 5000, 3_600_000)));
    /** The same log under a fixed window of 30 a minute and an hourly quota a key spends within a run. */
    static final QuotaModel.Plan TIGHT_PLAN = new QuotaModel.Plan("fault-tight", List.of(
            new QuotaModel.Policy("burst", true, false, 15, 10_000),
            new QuotaModel.Policy("per-minute", false, false, 30, 60_000),
            new QuotaModel.Policy("hourly", false, true, 45, 3_600_000)));

    private final TestCluster cluster;
    private final String applicationId;
    private final Path work;
    private final Map<String, SteadyLoad.Placement> keys;
    private final Map<String, QuotaModel.Plan> planOfKey = new LinkedHashMap<>();
    private final List<EnforcerJvm> instances = new ArrayList<>();
    private final DecisionWatch watch;
    private SteadyLoad load;

    private FaultScenario(TestCluster cluster, Path work) throws InterruptedException {
        this.cluster = cluster;
        this.applicationId = cluster.prefix() + "-app";
        this.work = work;
        cluster.createTopics(PARTITIONS);
        cluster.putPlan(LOG_PLAN.json());
        cluster.putPlan(TIGHT_PLAN.json());
        keys = SteadyLoad.keys("fk", KEYS);
        int i = 0;
        for (String key : keys.keySet()) {
            QuotaModel.Plan plan = i++ % 2 == 0 ? LOG_PLAN : TIGHT_PLAN;
            planOfKey.put(key, plan);
            cluster.assign(key, plan.id());
        }
        watch = DecisionWatch.committed(cluster);
    }

    /** Creates the topics, plans and key assignments of a fault test on the cluster. */
    static FaultScenario prepare(TestCluster cluster, Path work) throws InterruptedException {
        return new FaultScenario(cluster, work);
    }

    String applicationId() {
        return applicationId;
    }

    TestCluster cluster() {
        return cluster;
    }

    Map<String, SteadyLoad.Placement> keys() {
        return keys;
    }

    DecisionWatch watch() {
        return watch;
    }

    /** A new, empty state directory. */
    Path freshStateDir(String name) {
        try {
            return Files.createTempDirectory(work, name + "-state");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts an instance and waits until it is ready and every key's plan is in force. */
    EnforcerJvm start(String name, Path stateDir, Map<String, Object> overrides) throws InterruptedException {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT.toMillis());
        // Three heartbeats a session at least, as Kafka advises: at the 3 s default a 6 s session ends on a late beat.
        settings.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.min(3_000, SESSION_TIMEOUT.toMillis() / 3));
        settings.putAll(overrides);
        EnforcerJvm instance = EnforcerJvm.start(cluster, applicationId, name, stateDir, work, settings);
        instances.add(instance);
        instance.awaitReady();
        for (String key : keys.keySet()) {
            TestCluster.awaitCondition(key + "'s plan in force at the instance owning it",
                    () -> instance.knowsPlanOf(key), Duration.ofSeconds(60));
        }
        return instance;
    }

    EnforcerJvm start(String name, Path stateDir) throws InterruptedException {
        return start(name, stateDir, Map.of());
    }

    /** Starts the steady load; call once the first instance runs. */
    void startLoad() {
        load = SteadyLoad.start(cluster, PARTITIONS, keys, RATE_PER_SECOND);
    }

    /** Lets the load run until {@code requests} more have been sent. */
    void trafficFor(int requests) throws InterruptedException {
        int target = load.sentCount() + requests;
        TestCluster.awaitCondition(requests + " more requests sent", () -> load.sentCount() >= target,
                Duration.ofSeconds(10L + 2L * requests / RATE_PER_SECOND));
    }

    /**
     * The time from a fault until every request sent in the second after it had a committed decision:
     * how long the partitions the fault hit went undecided.
     */
    Duration recoveryAfter(long faultNanos, List<SteadyLoad.Sent> sent) {
        long worst = 0;
        for (SteadyLoad.Sent request : sent) {
            if (request.sentNanos() >= faultNanos && request.sentNanos() < faultNanos + TimeUnit.SECONDS.toNanos(1)) {
                Long seen = watch.firstSeenNanos(request.requestId());
                worst = Math.max(worst, seen == null ? Long.MAX_VALUE / 2 : seen - faultNanos);
            }
        }
        return Duration.ofNanos(worst);
    }

    /**
     * Stops the load (if {@link #startLoad} started one: a test may send its own requests), waits until
     * every request is decided and usage has caught up, stops every instance still running, and has the
     * verifier judge the output; fails unless it is exact.
     */
    List<SteadyLoad.Sent> finish(String what) throws InterruptedException {
        List<SteadyLoad.Sent> sent = load == null ? List.of() : load.stop();
        FaultVerifier verifier = verifier();
        FaultVerifier.Result settled = verifier.awaitSettled(Duration.ofSeconds(120));
        for (EnforcerJvm instance : instances) {
            if (instance.alive()) {
                instance.stop();
            }
        }
        FaultVerifier.Result result = verifier.check();
        List<String> open = verifier.openTransactions();
        report(what, result.figures() + (settled.exact() ? "" : "; before the stop:" + settled.problems()));
        if (!result.exact()) {
            result.assertExact(what + " (the instances' logs are kept in " + keepLogs() + ")");
        }
        if (!open.isEmpty()) {
            throw new AssertionError(what + ": transactions left open: " + open);
        }
        return sent;
    }

    /** Copies every instance's log to target/fault-logs/, which outlives the test's temporary directory. */
    private Path keepLogs() {
        Path kept = Path.of("target", "fault-logs", applicationId);
        try {
            Files.createDirectories(kept);
            for (EnforcerJvm instance : instances) {
                Files.copy(instance.log(), kept.resolve(instance.log().getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return kept.toAbsolutePath();
    }

    /** A figure of the suite, printed where the test reports show it. */
    static void report(String test, String figures) {
        System.out.println("fault-suite | " + test + " | " + figures);
    }

    /** The verifier of this scenario's output, for a test that judges more than {@link #finish} does. */
    FaultVerifier verifier() {
        return FaultVerifier.of(cluster, applicationId, planOfKey);
    }

    @Override
    public void close() throws InterruptedException {
        if (load != null) {
            load.close();
        }
        instances.forEach(EnforcerJvm::close);
        watch.close();
    }
}

package dev.quotaenforcer.bench;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.TopicApplier;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.client.GatewayDecision;
import dev.quotaenforcer.client.QuotaClient;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.runtime.Enforcer;
import dev.quotaenforcer.topology.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Metric;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Scenario 2: a gateway using the synchronous {@link QuotaClient} at fixed offered loads, open loop:
 * the time from each request's intended send to its decision received, under exactly-once (replies
 * read committed and uncommitted) and at-least-once; in a full run also the settings that move it.
 */
public final class LatencyScenario implements Scenario {

    static final List<Integer> LOADS = List.of(1_000, 5_000, 20_000);
    static final List<Integer> FLOOR_LOADS = List.of(1_000, 5_000);
    /** The issue's bound: p99 at most 5 ms at 5k requests/s. */
    static final int TARGET_LOAD = 5_000;
    static final double P99_TARGET_MS = 5;
    static final int KEYS = 2_000;
    static final int PARTITIONS = 6;
    /** Limits far above what {@link #KEYS} keys at these loads send, so nearly every request is allowed. */
    static final String PLAN = """
            {"id": "bench",
             "rateLimits": [{"name": "per-second", "algorithm": "sliding-window-counter", "limit": 1000, "window": "PT1S"}],
             "quota": {"name": "hourly", "algorithm": "fixed-window", "limit": 100000000, "window": "PT1H"}}""";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration DRAIN = TIMEOUT.plusSeconds(3);
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofMinutes(5);
    /** A warm-up goes on in slices this long while the JIT compilers still work ({@link #QUIET_COMPILING_MS}). */
    static final Duration WARMUP_SLICE = Duration.ofSeconds(5);
    /**
     * A warm-up ends once the JIT compilers worked at most this long in its last slice: 2% of a core. After a
     * fixed 30 s they still worked 9.6 s in the exactly-once enforcer's first 24 s of turns, and 0.5 s in its
     * turns at 5k/s against the reply echo's 0.02 s.
     */
    static final long QUIET_COMPILING_MS = 100;
    /**
     * A turn during which a core of the machine stopped this long is measured again: longer than the echo's p99 at
     * 5k/s, so that one such stop lifts a turn's p99 by itself, whichever application's turn it falls in.
     */
    static final long FREEZE_MS = 40;
    /** The most a warm-up is extended while the compilers work, so a JVM that never settles still gets measured. */
    private static final Duration MOST_WARMUP_EXTENSION = Duration.ofSeconds(90);

    /** What answers the gateway in a setup. */
    enum Responder {
        /** The enforcer, deciding every request. */
        ENFORCER,
        /** {@link ReplyEcho}: each request's bytes written back, the floor of any Streams app on this broker. */
        ECHO
    }

    /**
     * One way of answering the gateway, measured at each of {@code loads} once per reply isolation level.
     *
     * @param overrides enforcer settings over its defaults, as an operator would set them
     * @param tuning    whether it only varies a setting (measured in full runs only)
     */
    record Setup(String id, Responder responder, String guarantee, Map<String, Object> overrides,
                 List<IsolationLevel> readers, List<Integer> loads, boolean tuning) {
    }

    /**
     * One load of one setup, read at one isolation level.
     *
     * @param commitPerTaskMs Kafka Streams' {@code commit-latency-max} in its metric window (30 s) ending
     *                        after the load: a commit's time divided by the tasks it committed, so the
     *                        commit held every decision behind it up to that many times as long
     * @param punctuationMs   Kafka Streams' {@code punctuate-latency-max} in the same window: the longest
     *                        scheduled task run (the enforcer's usage write or expiry sweep), which held
     *                        every decision behind it as long
     * @param turnP99Ms       the p99 of each turn pooled in {@code result}, in the order they ran
     * @param commits         what the commits during those turns spent in Kafka's calls
     * @param cpu             where the CPU went during those turns, warm-ups and drains included
     * @param frozen          the turns a core of the machine stopped in, measured again and left out of the rest
     * @param echoIdlePartitions partitions of topics nothing writes to that a reply echo read beside the requests
     */
    record Measured(Setup setup, IsolationLevel replies, OpenLoop.Result result, double commitPerTaskMs,
                    double punctuationMs, List<Double> turnP99Ms, CommitTimes commits, TurnInterruptions interruptions,
                    TurnCpu cpu, FrozenTurns frozen, int echoIdlePartitions) {

        String series() {
            return setup.id() + (setup.guarantee().equals(StreamsConfig.EXACTLY_ONCE_V2)
                    ? "-" + (replies == IsolationLevel.READ_COMMITTED ? "committed" : "uncommitted") : "");
        }

        String label() {
            StringBuilder label = new StringBuilder(setup.responder() == Responder.ECHO ? "reply echo (floor), " : "");
            if (setup.responder() == Responder.ECHO && echoIdlePartitions > 0) {
                label.append("reading ").append(echoIdlePartitions).append(" idle partitions too, ");
            }
            label.append(setup.guarantee());
            if (setup.guarantee().equals(StreamsConfig.EXACTLY_ONCE_V2)) {
                label.append(", ").append(replies);
            }
            setup.overrides().forEach((name, value) -> label.append(", ").append(name).append('=').append(value));
            return label.toString();
        }
    }

    /**
     * The turns of one row in which a core of the machine stopped for at least {@link #FREEZE_MS}.
     *
     * @param measuredAgainP99Ms the p99 of each turn measured again for it, in the order they ran
     * @param kept               such turns kept in the row, once as many had been measured again as were planned
     * @param everyTurnP99Ms     the row's p99 with the turns measured again pooled in
     */
    record FrozenTurns(List<Double> measuredAgainP99Ms, int kept, double everyTurnP99Ms) {

        static FrozenTurns none(double p99Ms) {
            return new FrozenTurns(List.of(), 0, p99Ms);
        }
    }

    private static final Setup EOS = new Setup("eos", Responder.ENFORCER, StreamsConfig.EXACTLY_ONCE_V2, Map.of(),
            List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED), LOADS, false);
    private static final Setup ALOS = new Setup("alos", Responder.ENFORCER, StreamsConfig.AT_LEAST_ONCE, Map.of(),
            List.of(IsolationLevel.READ_COMMITTED), LOADS, false);
    // The floor, below the overload: what answering through Kafka Streams costs before anything is decided.
    private static final Setup ECHO_EOS = new Setup("echo-eos", Responder.ECHO, StreamsConfig.EXACTLY_ONCE_V2, Map.of(),
            List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED), FLOOR_LOADS, false);
    private static final Setup ECHO_ALOS = new Setup("echo-alos", Responder.ECHO, StreamsConfig.AT_LEAST_ONCE, Map.of(),
            List.of(IsolationLevel.READ_COMMITTED), FLOOR_LOADS, false);

    /**
     * Setups started together and measured in turns at each load they share (see {@link #turns}), in the order
     * they run: each enforcer beside the floor it is judged against, then the settings that move it, alone.
     */
    static final List<List<Setup>> GROUPS = List.of(
            List.of(EOS, ECHO_EOS),
            List.of(ALOS, ECHO_ALOS),
            // Kafka Streams' default, which the enforcer shortens to Kafka 4's client default of 5 ms: a decision
            // may wait up to 100 ms for others to share its produce request.
            List.of(new Setup("alos-linger100", Responder.ENFORCER, StreamsConfig.AT_LEAST_ONCE,
                    Map.of("producer.linger.ms", 100), List.of(IsolationLevel.READ_COMMITTED), List.of(TARGET_LOAD), true)),
            List.of(new Setup("eos-linger100", Responder.ENFORCER, StreamsConfig.EXACTLY_ONCE_V2,
                    Map.of("producer.linger.ms", 100), List.of(IsolationLevel.READ_UNCOMMITTED), List.of(TARGET_LOAD), true)),
            // Without the record caches each state change goes to its changelog as it happens, so a commit
            // waits for one producer flush instead of one per task whose cache it empties.
            List.of(new Setup("alos-nocache", Responder.ENFORCER, StreamsConfig.AT_LEAST_ONCE,
                    Map.of(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0),
                    List.of(IsolationLevel.READ_COMMITTED), List.of(TARGET_LOAD), true)),
            List.of(new Setup("eos-nocache", Responder.ENFORCER, StreamsConfig.EXACTLY_ONCE_V2,
                    Map.of(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0),
                    List.of(IsolationLevel.READ_UNCOMMITTED), List.of(TARGET_LOAD), true)),
            // The client's default back-off, which the enforcer shortens: a commit's markers usually take milliseconds.
            List.of(new Setup("eos-backoff100", Responder.ENFORCER, StreamsConfig.EXACTLY_ONCE_V2,
                    Map.of("producer.retry.backoff.ms", 100),
                    List.of(IsolationLevel.READ_UNCOMMITTED, IsolationLevel.READ_COMMITTED), List.of(TARGET_LOAD), true)),
            List.of(new Setup("eos-commit1000", Responder.ENFORCER, StreamsConfig.EXACTLY_ONCE_V2,
                    Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000),
                    List.of(IsolationLevel.READ_UNCOMMITTED), List.of(TARGET_LOAD), true)));

    static final List<Setup> SETUPS = GROUPS.stream().flatMap(List::stream).toList();

    private volatile List<Measured> measured = List.of();
    /** How many seconds each setup's warm-ups were extended while the JIT compilers still worked, by setup id. */
    private final Map<String, Long> warmupExtensions = new TreeMap<>();
    /** What the last run measured of the setups and loads, and in how many rounds of turns. */
    private LatencyFocus focus = LatencyFocus.ALL;

    @Override
    public String name() {
        return "latency";
    }

    @Override
    public String description() {
        return "A gateway using the synchronous client, open loop at 1k, 5k and 20k requests/s: p50, p99 and p99.9 "
                + "from each request's intended send to its decision received, exactly-once (replies read committed "
                + "and uncommitted) and at-least-once, beside the floor (a reply echo answering the same way through "
                + "Kafka Streams at 1k and 5k/s, taking turns with the enforcer); a full run also varies the enforcer's "
                + "producer linger, record cache and commit interval at 5k/s.";
    }

    /** What the last run measured, for the redis scenario to put beside its own; empty before any run. */
    List<Measured> measured() {
        return measured;
    }

    @Override
    public ScenarioResult run(BenchContext context) throws Exception {
        warmupExtensions.clear();
        focus = context.latencyFocus();
        Duration warmup = context.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(3);
        // A fresh JVM runs the broker, client and enforcer code interpreted until the JIT compiles it:
        // started cold, the enforcer fell behind at 1k/s under exactly-once for tens of seconds.
        Duration jvmWarmup = context.quick() ? Duration.ofSeconds(5) : Duration.ofSeconds(30);
        // Each later application, started in the warmed JVM, still allocates what it keeps as it starts (12 to 17 MB
        // for the enforcer, mostly its producer's pooled batch buffers); every young collection copies that until it
        // is promoted after 15 collections. Measured in that time, an at-least-once enforcer paused 11 to 15 ms per
        // collection against 4 to 6 ms once it was promoted.
        Duration applicationWarmup = context.quick() ? Duration.ofSeconds(2) : Duration.ofSeconds(25);
        Duration length = context.quick() ? Duration.ofSeconds(2) : Duration.ofSeconds(12);
        Path work = Files.createTempDirectory("quota-bench-latency");
        List<Measured> runs = new ArrayList<>();
        // The broker runs in a JVM of its own, as it would in production: in this one its fetch handling doubled
        // the young collections' pauses that stopped the gateway client and the enforcer with it.
        try (BrokerJvm broker = BrokerJvm.start(work.resolve("kafka"), context.outDir().resolve("latency-broker.log"));
             MachineFreezes machine = MachineFreezes.start(context.outDir().resolve("latency-freezes.log"))) {
            Map<String, Object> cluster = Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            for (List<Setup> group : GROUPS) {
                List<Setup> measuredNow = group.stream().filter(s -> focus.measures(s, context.quick())).toList();
                if (!measuredNow.isEmpty()) {
                    runs.addAll(measure(context, cluster, broker, machine, measuredNow,
                            runs.isEmpty() ? jvmWarmup : applicationWarmup, applicationWarmup, warmup, length, work));
                }
            }
        } finally {
            deleteRecursively(work);
        }
        runs.sort(Comparator.comparingInt((Measured run) -> SETUPS.indexOf(run.setup()))
                .thenComparingInt(run -> run.setup().readers().indexOf(run.replies()))
                .thenComparingDouble(run -> run.result().offeredPerSecond()));
        measured = List.copyOf(runs);
        return result(runs, warmup, jvmWarmup, applicationWarmup, length);
    }

    /** The application answering a setup's gateway, seen the same way whichever it is. */
    private record Answering(KafkaStreams streams, LongSupplier answered, Runnable stop) implements AutoCloseable {

        @Override
        public void close() {
            stop.run();
        }
    }

    /** One setup of a group while it runs: what answers it, on its own topics, and what its gateway asked. */
    private record Live(Setup setup, Topics topics, Answering answering, SplittableRandom keys, AtomicLong asked) {
    }

    /**
     * The order in which the setups sharing a load are measured, for {@code rounds} rounds: in each, each in turn,
     * then each again in reverse (A, B, B, A), so that a JVM warming up or a machine slowing down through the load
     * favours none of them. A setup alone takes one turn per round.
     */
    static <T> List<T> turns(List<T> sharing, int rounds) {
        List<T> round = new ArrayList<>(sharing);
        if (sharing.size() > 1) {
            List<T> reversed = new ArrayList<>(sharing);
            Collections.reverse(reversed);
            round.addAll(reversed);
        }
        List<T> turns = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            turns.addAll(round);
        }
        return turns;
    }

    /**
     * Starts what answers each setup of {@code group} on topics of its own, so no backlog of another setup reaches
     * it, and measures them in {@link #turns} at each load they share.
     *
     * @param firstWarmup how long the group's first setup is sent the target load, unmeasured, before the first
     *                    load: the JVM's warm-up for the run's first group, the application's own for the others
     * @param warmupAfter the same for the group's other setups
     */
    private List<Measured> measure(BenchContext context, Map<String, Object> cluster, BrokerJvm broker, MachineFreezes machine,
                                   List<Setup> group, Duration firstWarmup, Duration warmupAfter, Duration warmup,
                                   Duration length, Path work) throws Exception {
        List<Live> live = new ArrayList<>();
        try {
            for (Setup setup : group) {
                Topics topics = Topics.withPrefix(prefix(setup));
                live.add(new Live(setup, topics, start(setup, prepare(context, cluster, setup, topics, work), topics,
                        echoIdleTopics(setup)),
                        new SplittableRandom(context.seed()), new AtomicLong()));
            }
            List<Measured> runs = new ArrayList<>();
            // Each gateway client per setup and isolation level, all at once, so an overload comes after every
            // load below it however its replies are read: measured before them, its backlog slowed the next.
            Map<Live, Map<IsolationLevel, QuotaClient>> clients = new HashMap<>();
            try {
                for (Live setup : live) {
                    for (IsolationLevel isolation : setup.setup().readers()) {
                        clients.computeIfAbsent(setup, l -> new HashMap<>())
                                .put(isolation, client(cluster, setup, isolation));
                    }
                }
                for (Live setup : live) {
                    warmUp(context, setup, clients.get(setup).get(setup.setup().readers().get(0)),
                            setup == live.get(0) ? firstWarmup : warmupAfter);
                }
                List<IsolationLevel> readers = group.stream().flatMap(setup -> setup.readers().stream()).distinct().toList();
                // A quick run leaves out the overload above the target, whose backlog takes longest to drain.
                List<Integer> loads = group.stream().flatMap(setup -> setup.loads().stream()).distinct().sorted()
                        .filter(load -> focus.measures(load, context.quick())).toList();
                for (int load : loads) {
                    for (IsolationLevel isolation : readers) {
                        List<Live> sharing = live.stream().filter(l -> l.setup().readers().contains(isolation)
                                && l.setup().loads().contains(load)).toList();
                        if (!sharing.isEmpty()) {
                            runs.addAll(measureInTurns(context, broker, machine, sharing,
                                    setup -> clients.get(setup).get(isolation), isolation, load, warmup,
                                    sharing.size() > 1 ? length.dividedBy(2) : length));
                        }
                    }
                }
            } finally {
                clients.values().forEach(byIsolation -> byIsolation.values().forEach(QuotaClient::close));
            }
            return runs;
        } finally {
            live.forEach(l -> l.answering().close());
        }
    }

    /**
     * Each setup's figures at one load and isolation level, its {@link #turns} pooled. A turn during which a core of
     * the machine stopped is measured again at once, as the same setup's next turn.
     */
    private List<Measured> measureInTurns(BenchContext context, BrokerJvm broker, MachineFreezes machine, List<Live> sharing,
                                          Function<Live, QuotaClient> clients, IsolationLevel isolation, int load,
                                          Duration warmup, Duration turnLength) throws InterruptedException {
        Map<Live, List<OpenLoop.Result>> results = new HashMap<>();
        Map<Live, Double> commitPerTaskMs = new HashMap<>();
        Map<Live, Double> punctuationMs = new HashMap<>();
        Map<Live, CommitTimes> commits = new HashMap<>();
        Map<Live, TurnInterruptions> interruptions = new HashMap<>();
        Map<Live, TurnCpu> cpu = new HashMap<>();
        Map<Live, List<OpenLoop.Result>> frozen = new HashMap<>();
        Map<Live, Integer> frozenKept = new HashMap<>();
        List<Live> planned = turns(sharing, focus.rounds(load, sharing.size(), context.quick()));
        List<Live> turns = new ArrayList<>(planned);
        for (int turn = 0; turn < turns.size(); turn++) {
            Live setup = turns.get(turn);
            String ids = setup.setup().id() + "-" + isolation + "-" + load + "-" + turn + "-";
            CommitTimes before = CommitTimes.of(setup.answering().streams());
            TurnInterruptions interruptedBefore = TurnInterruptions.of(setup.answering().streams());
            TurnCpu cpuBefore = TurnCpu.of(applicationId(setup.setup()), setup.asked().get(), broker);
            long measuredFrom = System.currentTimeMillis() + warmup.toMillis();
            OpenLoop.Result result = OpenLoop.run(load, warmup, turnLength, DRAIN,
                    asking(clients.apply(setup), setup.keys(), setup.asked(), ids));
            List<MachineFreezes.Freeze> freezes =
                    machine.overlapping(measuredFrom - FREEZE_MS, System.currentTimeMillis(), FREEZE_MS);
            List<OpenLoop.Result> frozenSoFar = frozen.computeIfAbsent(setup, l -> new ArrayList<>());
            // At most as many turns again as were planned, so a machine that keeps freezing still gets measured.
            boolean measureAgain = !freezes.isEmpty() && frozenSoFar.size() < Collections.frequency(planned, setup);
            if (measureAgain) {
                frozenSoFar.add(result);
                turns.add(turn + 1, setup);
            } else {
                if (!freezes.isEmpty()) {
                    frozenKept.merge(setup, 1, Integer::sum);
                }
                commits.merge(setup, CommitTimes.of(setup.answering().streams()).since(before), CommitTimes::plus);
                interruptions.merge(setup, TurnInterruptions.of(setup.answering().streams()).since(interruptedBefore),
                        TurnInterruptions::plus);
                cpu.merge(setup, TurnCpu.of(applicationId(setup.setup()), setup.asked().get(), broker).since(cpuBefore), TurnCpu::plus);
                results.computeIfAbsent(setup, l -> new ArrayList<>()).add(result);
                KafkaStreams streams = setup.answering().streams();
                commitPerTaskMs.merge(setup, longestThreadMetric(streams, "commit-latency-max"), Math::max);
                punctuationMs.merge(setup, longestThreadMetric(streams, "punctuate-latency-max"), Math::max);
            }
            if (turns.size() > 1) {
                context.progress().say(name(), setup.setup().id() + ", " + isolation + ", turn " + (turn + 1) + " of "
                        + turns.size() + " at " + load + "/s: p99 " + Numbers.of(result.latency().p99Ms()) + " ms"
                        + (freezes.isEmpty() ? "" : "; the machine froze " + freezes.stream()
                        .map(f -> f.millis() + " ms on core " + f.cpu()).toList()
                        + (measureAgain ? ", so the turn is measured again"
                        : ", kept: no turns left to measure again")));
            }
            awaitCaughtUp(context, setup.answering(), setup.asked().get());
        }
        List<Measured> runs = new ArrayList<>();
        for (Live setup : sharing) {
            List<OpenLoop.Result> own = results.get(setup);
            OpenLoop.Result result = OpenLoop.Result.pooled(own);
            List<OpenLoop.Result> again = frozen.getOrDefault(setup, List.of());
            List<OpenLoop.Result> every = new ArrayList<>(own);
            every.addAll(again);
            Measured run = new Measured(setup.setup(), isolation, result, commitPerTaskMs.get(setup),
                    punctuationMs.get(setup), own.stream().map(r -> r.latency().p99Ms()).toList(), commits.get(setup),
                    interruptions.get(setup), cpu.get(setup), new FrozenTurns(again.stream().map(r -> r.latency().p99Ms()).toList(),
                    frozenKept.getOrDefault(setup, 0), OpenLoop.Result.pooled(every).latency().p99Ms()),
                    echoIdleTopics(setup.setup()).size() * PARTITIONS);
            context.progress().say(name(), run.label() + " at " + load + "/s: p50 "
                    + Numbers.of(result.latency().p50Ms()) + " ms, p99 " + Numbers.of(result.latency().p99Ms())
                    + " ms (" + Numbers.of(run.frozen().everyTurnP99Ms()) + " with the turns the machine froze, "
                    + again.size() + " measured again), p99.9 " + Numbers.of(result.latency().p999Ms()) + " ms, "
                    + Numbers.of(result.decidedPerSecond()) + " decided/s, " + result.byPolicy()
                    + " by failure policy, sender at most " + Numbers.of(result.sendLagMs()) + " ms behind, "
                    + "longest commit per task " + Numbers.of(run.commitPerTaskMs()) + " ms, longest punctuation "
                    + Numbers.of(run.punctuationMs()) + " ms, per commit " + perCommit(run.commits()) + " ms, "
                    + collections(run.interruptions()) + " JVM collections / ms, "
                    + Numbers.of(run.interruptions().retriedRecords()) + " records sent again, "
                    + Numbers.of(run.interruptions().compilingMs()) + " ms compiling, CPU per request " + cpuPerRequest(run.cpu()));
            runs.add(run);
        }
        return runs;
    }

    /** A commit's mean time in the producer's flush, sending the offsets and committing the transaction. */
    static String perCommit(CommitTimes commits) {
        return Numbers.of(commits.flushMsPerCommit()) + " / " + Numbers.of(commits.sendOffsetsMsPerCommit()) + " / "
                + Numbers.of(commits.commitMsPerCommit());
    }

    /** CPU per request in µs of the application, the rest of this JVM and the broker, and how busy the machine was. */
    static String cpuPerRequest(TurnCpu cpu) {
        return Numbers.of(cpu.applicationMicros()) + " / " + Numbers.of(cpu.restOfJvmMicros()) + " / "
                + Numbers.of(cpu.brokerMicros()) + "; " + Numbers.of(100 * cpu.machineBusy()) + "%";
    }

    /** The JVM's collections during a setup's turns and their time in ms. */
    static String collections(TurnInterruptions interruptions) {
        return Numbers.of(interruptions.collections()) + " / " + Numbers.of(interruptions.collectionMs());
    }

    /** A setup's application id, which every thread of its application carries in its name. */
    private static String applicationId(Setup setup) {
        return "bench-" + prefix(setup);
    }

    /** The prefix of a setup's topics and application id, so no two setups share either. */
    private static String prefix(Setup setup) {
        return "lat-" + setup.id();
    }

    /**
     * Creates a setup's topics and puts the bench plan on them, and returns the enforcer's settings for it: its
     * own topics, state directory and application id.
     */
    private Map<String, Object> prepare(BenchContext context, Map<String, Object> cluster, Setup setup,
                                        Topics topics, Path work) throws Exception {
        String prefix = prefix(setup);
        try (Admin admin = Admin.create(cluster)) {
            TopicApplier.apply(admin, TopicDefinitions.bundled().withPrefix(prefix)
                    .withPartitions(topics.requests().name(), PARTITIONS)
                    .withPartitions(topics.commands().name(), PARTITIONS));
            List<NewTopic> idle = echoIdleTopics(setup).stream().map(name -> new NewTopic(name, PARTITIONS, (short) 1)).toList();
            admin.createTopics(idle).all().get();
        }
        new CatalogClient(cluster, topics).putPlan(PLAN.getBytes(StandardCharsets.UTF_8));
        Map<String, Object> settings = new HashMap<>(context.enforcerSettings());
        settings.putAll(cluster);
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId(setup));
        settings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, setup.guarantee());
        settings.put(StreamsConfig.STATE_DIR_CONFIG, work.resolve(prefix).toString());
        settings.put(EnforcerConfig.TOPIC_PREFIX_CONFIG, prefix);
        settings.put(EnforcerConfig.DEFAULT_PLAN_CONFIG, "bench");
        settings.put(EnforcerConfig.HTTP_PORT_CONFIG, -1);
        settings.putAll(setup.overrides());
        return settings;
    }

    /** A gateway client of the setup reading replies at {@code isolation}, once its first real decision is back. */
    private static QuotaClient client(Map<String, Object> cluster, Live setup, IsolationLevel isolation) throws Exception {
        QuotaClient client = new QuotaClient(cluster, QuotaClient.Options.builder()
                .requestsTopic(setup.topics().requests().name()).replyTopic(setup.topics().replies().name())
                .replyPartition(0).timeout(TIMEOUT).failurePolicy(QuotaClient.FailurePolicy.FAIL_OPEN)
                .replyIsolation(isolation).build(), Clock.systemUTC());
        try {
            if (!client.awaitReady(READY_TIMEOUT)) {
                throw new IllegalStateException("the gateway client did not reach the cluster within " + READY_TIMEOUT);
            }
            awaitFirstDecision(client, setup.setup(), setup.asked());
            return client;
        } catch (Exception | Error e) {
            client.close();
            throw e;
        }
    }

    private void warmUp(BenchContext context, Live setup, QuotaClient client, Duration length) throws InterruptedException {
        context.progress().say(name(), "warming " + setup.setup().id() + " up: " + TARGET_LOAD + " requests/s for "
                + length.toSeconds() + " s, not measured");
        OpenLoop.run(TARGET_LOAD, Duration.ZERO, length, DRAIN, asking(client, setup.keys(), setup.asked(), "warmup-"));
        awaitCaughtUp(context, setup.answering(), setup.asked().get());
        Duration most = context.quick() ? Duration.ZERO : MOST_WARMUP_EXTENSION;
        Duration extended = Duration.ZERO;
        double compilingMs = Double.MAX_VALUE;
        while (extended.compareTo(most) < 0 && compilingMs > QUIET_COMPILING_MS) {
            double before = ThreadTimes.compilingSoFar() / 1e6;
            // Ids of their own: a slice asking the ids of the one before would be answered from the dedup window.
            OpenLoop.run(TARGET_LOAD, Duration.ZERO, WARMUP_SLICE, DRAIN,
                    asking(client, setup.keys(), setup.asked(), "warmup-" + extended.toSeconds() + "-"));
            awaitCaughtUp(context, setup.answering(), setup.asked().get());
            compilingMs = ThreadTimes.compilingSoFar() / 1e6 - before;
            extended = extended.plus(WARMUP_SLICE);
        }
        warmupExtensions.merge(setup.setup().id(), extended.toSeconds(), Long::sum);
        if (!extended.isZero()) {
            context.progress().say(name(), "warmed " + setup.setup().id() + " up " + extended.toSeconds()
                    + " s more, until the JIT compilers worked " + Numbers.of(compilingMs) + " ms in the last "
                    + WARMUP_SLICE.toSeconds() + " s");
        }
    }

    /** Asks about a request of a random key, counting it; true when the enforcer (not the policy) answered. */
    private static OpenLoop.Sender asking(QuotaClient client, SplittableRandom keys, AtomicLong asked, String ids) {
        return i -> {
            asked.incrementAndGet();
            return client.check("key-" + keys.nextInt(KEYS), 1, ids + i).thenApply(decision -> !decision.byFailurePolicy());
        };
    }

    /** The topics, never written, that a setup's reply echo reads beside its requests: none but for the echo, as focused. */
    private List<String> echoIdleTopics(Setup setup) {
        if (setup.responder() != Responder.ECHO) {
            return List.of();
        }
        return IntStream.range(0, focus.echoIdleTopics()).mapToObj(i -> prefix(setup) + ".idle-" + i).toList();
    }

    private static Answering start(Setup setup, Map<String, Object> settings, Topics topics, List<String> echoIdleTopics)
            throws InterruptedException {
        Answering answering;
        boolean ready;
        if (setup.responder() == Responder.ECHO) {
            // The echo is a plain Streams application with the Kafka settings the enforcer would run with (its
            // producer defaults among them), so the floor differs from the enforcer only in what is decided.
            Map<String, Object> streamsSettings = new HashMap<>();
            new EnforcerConfig(settings).streamsProperties().forEach((name, value) -> streamsSettings.put((String) name, value));
            ReplyEcho echo = new ReplyEcho(streamsSettings, topics.requests().name(), echoIdleTopics, topics.replies().name());
            answering = new Answering(echo.streams(), echo::answered, echo::close);
            ready = echo.awaitRunning(READY_TIMEOUT);
        } else {
            Enforcer enforcer = Enforcer.start(settings);
            answering = new Answering(enforcer.streams(), () -> enforcer.stats().decided(), enforcer::close);
            ready = enforcer.awaitReady(READY_TIMEOUT);
        }
        if (!ready) {
            answering.close();
            throw new IllegalStateException("what answers " + setup.id() + " did not start within " + READY_TIMEOUT);
        }
        return answering;
    }

    /**
     * Waits until the application has answered every request asked so far, so a backlog left by an
     * overload is not charged to the next load.
     */
    private void awaitCaughtUp(BenchContext context, Answering answering, long asked) throws InterruptedException {
        long deadline = System.nanoTime() + CATCH_UP_TIMEOUT.toNanos();
        long decided = answering.answered().getAsLong();
        if (decided < asked) {
            context.progress().say(name(), "waiting to catch up: " + decided + " of " + asked + " requests answered");
        }
        while (decided < asked) {
            if (System.nanoTime() > deadline) {
                // Measuring on is still honest: the backlog shows in the next load's figures, and the log says why.
                context.progress().say(name(), "only " + decided + " of " + asked + " requests were answered "
                        + CATCH_UP_TIMEOUT + " after they were sent; the next load starts behind");
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
            decided = answering.answered().getAsLong();
        }
    }

    /** The largest value of a stream-thread metric over the application's threads; NaN before it is recorded. */
    private static double longestThreadMetric(KafkaStreams streams, String name) {
        return streams.metrics().values().stream()
                .filter(metric -> metric.metricName().group().equals("stream-thread-metrics")
                        && metric.metricName().name().equals(name))
                .map(Metric::metricValue)
                .filter(Double.class::isInstance).mapToDouble(Double.class::cast)
                .max().orElse(Double.NaN);
    }

    /** Asks until a real decision comes back: the enforcer then has its plan and its reply topics in hand. */
    private static void awaitFirstDecision(QuotaClient client, Setup setup, AtomicLong asked) throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (int attempt = 0; System.nanoTime() < deadline; attempt++) {
            asked.incrementAndGet();
            GatewayDecision decision = client.check("key-0", 1, "probe-" + setup.id() + "-" + attempt).get();
            // The enforcer denies until its plan catalog is loaded; the echo answers with the request itself.
            if (!decision.byFailurePolicy() && (decision.allowed() || setup.responder() == Responder.ECHO)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException("no decision from the enforcer of " + setup.id() + " within " + READY_TIMEOUT);
    }

    /**
     * @param jvmWarmup         how long the first setup sent at the target load, unmeasured, before its first load
     * @param applicationWarmup the same for each later setup
     */
    ScenarioResult result(List<Measured> runs, Duration warmup, Duration jvmWarmup, Duration applicationWarmup,
                          Duration length) {
        ScenarioResult.Builder result = ScenarioResult.builder(this, "send to decision received, open loop")
                .figure("keys", KEYS, "keys")
                .figure("partitions", PARTITIONS, "partitions")
                .figure("secondsPerLoad", length.toSeconds(), "s")
                .figure("warmupSeconds", warmup.toSeconds(), "s")
                .figure("jvmWarmupSeconds", jvmWarmup.toSeconds(), "s")
                .figure("applicationWarmupSeconds", applicationWarmup.toSeconds(), "s");
        warmupExtensions.forEach((setup, seconds) -> result.figure(setup + ".warmupExtensionSeconds", seconds, "s"));
        List<List<String>> rows = new ArrayList<>();
        List<Chart.Bar> p50 = new ArrayList<>();
        List<Chart.Bar> p99 = new ArrayList<>();
        List<Chart.Bar> p999 = new ArrayList<>();
        for (Measured run : runs) {
            OpenLoop.Result r = run.result();
            LatencySummary latency = r.latency();
            String id = run.series() + "." + (long) r.offeredPerSecond();
            result.figure(id + ".p50Ms", latency.p50Ms(), "ms")
                    .figure(id + ".p99Ms", latency.p99Ms(), "ms")
                    .figure(id + ".p999Ms", latency.p999Ms(), "ms")
                    .figure(id + ".maxMs", latency.maxMs(), "ms")
                    .figure(id + ".decidedPerSecond", r.decidedPerSecond(), "decisions/s")
                    .figure(id + ".byFailurePolicy", r.byPolicy(), "requests")
                    .figure(id + ".longestCommitPerTaskMs", run.commitPerTaskMs(), "ms")
                    .figure(id + ".longestPunctuationMs", run.punctuationMs(), "ms")
                    .figure(id + ".flushMsPerCommit", run.commits().flushMsPerCommit(), "ms")
                    .figure(id + ".sendOffsetsMsPerCommit", run.commits().sendOffsetsMsPerCommit(), "ms")
                    .figure(id + ".commitMsPerCommit", run.commits().commitMsPerCommit(), "ms")
                    .figure(id + ".collections", run.interruptions().collections(), "collections")
                    .figure(id + ".collectionMs", run.interruptions().collectionMs(), "ms")
                    .figure(id + ".retriedRecords", run.interruptions().retriedRecords(), "records")
                    .figure(id + ".compilingMs", run.interruptions().compilingMs(), "ms")
                    .figure(id + ".applicationCpuMicrosPerRequest", run.cpu().applicationMicros(), "µs")
                    .figure(id + ".restOfJvmCpuMicrosPerRequest", run.cpu().restOfJvmMicros(), "µs")
                    .figure(id + ".brokerCpuMicrosPerRequest", run.cpu().brokerMicros(), "µs")
                    .figure(id + ".machineBusyShare", run.cpu().machineBusy(), "share")
                    .figure(id + ".turnsMeasuredAgain", run.frozen().measuredAgainP99Ms().size(), "turns")
                    .figure(id + ".frozenTurnsKept", run.frozen().kept(), "turns")
                    .figure(id + ".everyTurnP99Ms", run.frozen().everyTurnP99Ms(), "ms");
            rows.add(List.of(run.label(), Numbers.of(r.offeredPerSecond()), Numbers.of(r.decidedPerSecond()),
                    Numbers.of(latency.p50Ms()), Numbers.of(latency.p99Ms()), perTurn(run.turnP99Ms()),
                    Numbers.of(latency.p999Ms()), Numbers.of(latency.maxMs()), Long.toString(r.byPolicy()),
                    Long.toString(r.failed() + r.unanswered()), Numbers.of(r.sendLagMs()), Numbers.of(run.commitPerTaskMs()),
                    perCommit(run.commits()), Numbers.of(run.punctuationMs()), collections(run.interruptions()),
                    Numbers.of(run.interruptions().retriedRecords()), Numbers.of(run.interruptions().compilingMs()),
                    cpuPerRequest(run.cpu()), frozenTurns(run.frozen()), Numbers.of(run.frozen().everyTurnP99Ms())));
            String label = run.label() + " @" + (long) r.offeredPerSecond() / 1000 + "k/s";
            p50.add(new Chart.Bar(label, latency.p50Ms(), 0));
            p99.add(new Chart.Bar(label, latency.p99Ms(), 0));
            p999.add(new Chart.Bar(label, latency.p999Ms(), 0));
        }
        result.table(new Table("Open loop, " + length.toSeconds() + " s per load after " + warmup.toSeconds()
                + " s of warm-up, " + KEYS + " keys, " + PARTITIONS + " partitions, one stream thread, gateway client "
                + "in the same process, broker in a JVM of its own; milliseconds",
                List.of("setup", "offered/s", "decided/s", "p50", "p99", "p99 per turn", "p99.9", "max", "by failure policy",
                        "failed or unanswered", "sender behind, ms", "longest commit per task, ms",
                        "per commit: producer flush / offsets / transaction commit, ms", "longest punctuation, ms",
                        "JVM collections in its turns / ms they took", "records its producer sent again",
                        "ms the JIT compilers worked in its turns",
                        "CPU per request, µs: application / rest of this JVM / broker; machine busy",
                        "turns measured again: a core stopped " + FREEZE_MS + " ms or more (their p99s)",
                        "p99 with those turns"), rows));
        result.chart(new Chart("p50", "ms", p50));
        result.chart(new Chart("p99", "ms", p99));
        result.chart(new Chart("p99.9", "ms", p999));
        List<List<String>> floorRows = new ArrayList<>();
        for (String series : List.of("eos-uncommitted", "eos-committed", "alos")) {
            for (int load : FLOOR_LOADS) {
                Optional<Measured> enforcer = find(runs, series, load);
                Optional<Measured> floor = find(runs, "echo-" + series, load);
                if (enforcer.isPresent() && floor.isPresent()) {
                    double ours = enforcer.get().result().latency().p99Ms();
                    double echo = floor.get().result().latency().p99Ms();
                    double oursEvery = enforcer.get().frozen().everyTurnP99Ms();
                    double echoEvery = floor.get().frozen().everyTurnP99Ms();
                    result.figure(series + "." + load + ".p99OverFloor", ours / echo, "x");
                    result.figure(series + "." + load + ".everyTurnP99OverFloor", oursEvery / echoEvery, "x");
                    floorRows.add(List.of(enforcer.get().label(), Integer.toString(load), Numbers.of(echo),
                            Numbers.of(ours), Numbers.of(ours / echo), Numbers.of(echoEvery), Numbers.of(oursEvery),
                            Numbers.of(oursEvery / echoEvery)));
                }
            }
        }
        if (!floorRows.isEmpty()) {
            result.table(new Table("p99 against the floor: the reply echo answering the same gateway under the same "
                    + "guarantee, measured in this run; milliseconds",
                    List.of("setup", "offered/s", "reply echo p99", "enforcer p99", "enforcer / echo",
                            "with the turns a core stopped in: reply echo p99", "enforcer p99", "enforcer / echo"),
                    floorRows));
        }
        for (String series : List.of("eos-uncommitted", "alos")) {
            runs.stream().filter(r -> r.series().equals(series) && r.result().offeredPerSecond() == TARGET_LOAD)
                    .findFirst().ifPresent(run -> result.target(Target.atMost("p99 at " + TARGET_LOAD + "/s, "
                            + run.label(), run.result().latency().p99Ms(), P99_TARGET_MS, "ms")));
        }
        result.note("Before anything was measured, the first setup's gateway sent " + TARGET_LOAD + " requests/s for "
                + jvmWarmup.toSeconds() + " s and waited for every decision: in a fresh JVM the broker, the client and "
                + "the enforcer run interpreted until the JIT compiles them, and an enforcer measured cold fell behind "
                + "even at 1k/s under exactly-once for tens of seconds. Every other setup is sent the same way for "
                + applicationWarmup.toSeconds() + " s first: what an application allocates as it starts and keeps (12 to "
                + "17 MB for the enforcer, mostly its Kafka producer's pooled batch buffers by a JFR sample of the objects "
                + "that stayed alive) is copied by every young collection until it is promoted after 15 of them, and an "
                + "at-least-once enforcer measured in that time paused 11 to 15 ms per collection instead of 4 to 6 ms. "
                + "Each warm-up then went on in " + WARMUP_SLICE.toSeconds() + " s slices while the JIT compilers worked "
                + "more than " + QUIET_COMPILING_MS + " ms in the last one (a measured turn shares the two cores with them), "
                + "up to " + MOST_WARMUP_EXTENSION.toSeconds() + " s more; this run's extensions, in seconds by setup: "
                + (warmupExtensions.isEmpty() ? "none" : warmupExtensions) + ".");
        result.note("The enforcer and the reply echo it is judged against run side by side in the JVM, each on topics "
                + "of its own, and take turns at each load they share: enforcer, echo, echo, enforcer, each turn "
                + length.dividedBy(2).toSeconds() + " s after " + warmup.toSeconds() + " s of warm-up (a full run takes "
                + LatencyFocus.FULL_RUN_TARGET_ROUNDS + " such rounds at " + TARGET_LOAD + "/s, where the ratios are judged: "
                + "with two turns each, a ratio rested on whichever application the machine's worst seconds fell on), and "
                + "each one's turns pooled into its row ('p99 per turn' shows them). Measured one after the other instead, the "
                + "same build was a third faster when it ran later in the JVM, which favoured whichever ran last. The "
                + "one waiting for its turn still polls and runs its scheduled tasks, with nothing to answer. Loads and settings measured for the "
                + "enforcer alone run " + length.toSeconds() + " s in one turn.");
        if (!focus.all()) {
            result.note("This run was focused: " + (focus.setups().isEmpty() ? "every setup" : "setups " + focus.setups())
                    + " at " + (focus.loads().isEmpty() ? "their own loads" : "loads " + focus.loads() + " requests/s")
                    + ", in " + focus.rounds() + " round(s) of turns (enforcer, echo, echo, enforcer in each; a setup "
                    + "measured alone, one turn per round). The rows of the setups and loads it left out are missing."
                    + (focus.echoIdleTopics() == 0 ? "" : " The reply echo read " + focus.echoIdleTopics() * PARTITIONS
                    + " partitions of topics nothing wrote to beside the requests', as the enforcer reads partitions of"
                    + " topics that are nearly always empty: its rows, and the ratios to it, are against that floor."));
        }
        result.note("Latency runs from the time each request was due to be sent (an even schedule at the offered rate) "
                + "to its decision arriving at the client, so a stall of the client, broker or enforcer counts against "
                + "every request it held up. The client answers by its failure policy after " + TIMEOUT.toMillis()
                + " ms; such answers are recorded at that latency and counted in 'by failure policy'.");
        result.note("A core of this kind of virtual machine sometimes stops for about 100 ms (its host runs something "
                + "else on it): a process of the bench's own, with one thread pinned to each core waking every 1 ms, "
                + "notes each stop (latency-freezes.log), and a C program at real-time priority saw the same stops. "
                + "Every thread on that core stops with it, whichever application it belongs to, so a turn it falls in "
                + "measures the host: one stop of 100 ms holds more than 1% of a 6 s turn's requests at 5k/s, so the "
                + "turn's p99 becomes about what the stop was. A turn during which a core stopped " + FREEZE_MS
                + " ms or more is measured again at once, at most as many times as the setup had turns planned; "
                + "its p99 is shown in its row, which otherwise leaves it out, and the ratio to the floor with those "
                + "turns pooled in stands beside the ratio without them.");
        result.note("Under exactly-once a read_committed client sees a decision only when the enforcer's transaction "
                + "commits (every commit.interval.ms, 100 ms by default), so its latency is bounded below by that wait; "
                + "the p99 target is judged with replies read uncommitted, which the README weighs. At-least-once "
                + "writes no transactions, so its replies are read the same either way.");
        result.note("The reply echo (the floor) is a Kafka Streams application that writes each request's bytes back to "
                + "the gateway's reply partition, deciding, storing and counting nothing, on the same broker with the "
                + "same partitions, guarantee and client: what any request-reply Streams application pays on this "
                + "machine. The enforcer's p99 over the echo's is what deciding adds to it.");
        result.note("'Longest commit per task' is Kafka Streams' commit-latency-max: a commit's time divided by the tasks "
                + "it committed. A commit stops the stream thread for all its tasks in turn, so the stall every decision "
                + "behind it waited is that figure times the tasks with something to commit (7 of the enforcer's 19 in "
                + "Kafka Streams' debug log of a run at 5k/s). 'Longest punctuation' is its punctuate-latency-max over "
                + "the same 30 s window: the longest scheduled run (the enforcer's usage write once a second, its "
                + "expiry sweep), during which the stream thread decided nothing.");
        result.note("'Per commit' is the stream thread's mean time per commit in three of Kafka's calls, from the "
                + "producer's and thread's cumulative metrics over the row's turns: the producer flush, which waits for "
                + "every record sent so far, those the tasks wrote as the commit was prepared among them; sending the "
                + "input offsets to the transaction; committing it. At-least-once has no transaction: its flush only.");
        result.note("'CPU per request' divides the CPU used during a row's turns, warm-ups and drains included, by the "
                + "requests asked in them: of the application's threads (every thread named with its application id), "
                + "of the rest of this JVM (the gateway client, the JIT compilers, the collector, and the application "
                + "waiting for its turn), and of the broker's JVM; beside them, the share of the machine's core time "
                + "that was busy (/proc/stat, the host's steal left out). On two cores a busy machine makes every "
                + "request queue for one, so a setup's tail grows with the CPU of everything, not its own alone.");
        result.note("For scale: envoy's ratelimit service reports about 5 ms p99 against Redis at 500 requests/s; the "
                + "redis scenario measures a Redis + Lua limiter on this machine at the same loads.");
        return result.build();
    }

    /** How many turns were measured again because a core stopped, their p99s, and any such turns kept. */
    static String frozenTurns(FrozenTurns frozen) {
        String again = frozen.measuredAgainP99Ms().isEmpty() ? "0" : frozen.measuredAgainP99Ms().size() + " ("
                + String.join(", ", frozen.measuredAgainP99Ms().stream().map(Numbers::of).toList()) + ")";
        return frozen.kept() == 0 ? again : again + "; " + frozen.kept() + " kept, none left to measure again";
    }

    /** The turns' p99s in the order they ran, or a dash for a load measured in one turn. */
    private static String perTurn(List<Double> p99Ms) {
        return p99Ms.size() < 2 ? "-" : String.join(", ", p99Ms.stream().map(Numbers::of).toList());
    }

    private static Optional<Measured> find(List<Measured> runs, String series, int load) {
        return runs.stream().filter(r -> r.series().equals(series) && r.result().offeredPerSecond() == load).findFirst();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}

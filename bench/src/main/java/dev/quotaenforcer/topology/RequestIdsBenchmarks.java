package dev.quotaenforcer.topology;

import dev.quotaenforcer.bench.ShortJmhRun;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.event.RequestEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.StoreBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.RunnerException;

/**
 * JMH benchmark of what a task's request ids cost a new request: its lookup, remembering its decision
 * and forgetting what left the dedup window, with the window full of ids, as a task holds them under
 * steady load: 50,000 ids (the latency scenario's share of a task: 5,000 requests/s over six tasks and
 * a 60 s window) or 300,000. Measured back to back, requests find much of the index in the processor's
 * caches; with {@code cold}, the caches are filled with other data before each request, as the broker
 * and clients sharing the machine fill them between a task's requests at 5,000/s (the latency scenario
 * measured ten times the warm figure per request). The filling is not timed; {@link #nothing} measures
 * what the call and its timing cost alone. The stores are those a task builds (RocksDB beneath the batches'
 * write-back), without changelogs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-XX:+UseTransparentHugePages"})
@State(Scope.Thread)
public class RequestIdsBenchmarks {

    private static final long WINDOW_MS = 60_000;
    private static final long START = Instant.parse("2026-12-07T12:00:00Z").toEpochMilli();
    private static final String API_KEY = "key-live-4f9a2c";
    /** Requests between two write-backs of the batch store: a commit every 100 ms at 5,000 requests/s. */
    private static final int PER_COMMIT = 500;

    /** Ids in the window once it is full. */
    @Param({"50000", "300000"})
    public int ids;

    /** Whether the caches are filled with other data before each request. */
    @Param({"false", "true"})
    public boolean cold;

    private Path stateDir;
    private final List<StateStore> stores = new ArrayList<>();
    private RequestIds requestIds;
    private WriteBackStore<Long, RequestIdBatch> batches;
    private RequestEvent request;
    private Decision decision;
    /** Request ids made in set-up, more than the window holds, so each is new again when its turn comes round. */
    private String[] requestIdTexts;
    private long sent;
    /** Bytes read a cache line apart before a cold request: more than a server processor's last-level cache. */
    private byte[] elsewhere;
    /** What the filling read, kept so the compiler cannot drop the reads. */
    private int elsewhereSum;

    @Setup(Level.Trial)
    public void fillWindow() throws IOException {
        stateDir = Files.createTempDirectory("quota-bench-request-ids");
        MockProcessorContext<String, String> context = new MockProcessorContext<>(new Properties(), new TaskId(0, 0),
                stateDir.toFile());
        for (StoreBuilder<?> builder : RequestIds.storeBuilders(Map.of())) {
            StateStore store = builder.withLoggingDisabled().build();
            store.init(context.getStateStoreContext(), store);
            context.addStateStore(store);
            stores.add(store);
        }
        batches = WriteBackStore.of(context.getStateStore(RequestIds.STORE));
        requestIds = new RequestIds(batches, context.getStateStore(RequestIds.COMMANDS_STORE), WINDOW_MS);
        elsewhere = cold ? new byte[64 * 1024 * 1024] : null;
        request = new RequestEvent("r", API_KEY, 1, START);
        decision = new Decision("r", API_KEY, "pro", true, Reason.OK, "per-minute", 100, 37, 23, 0, 0,
                Instant.ofEpochMilli(START), null);
        requestIdTexts = new String[4 * ids];
        for (int i = 0; i < requestIdTexts.length; i++) {
            requestIdTexts[i] = "7f3c9a2e-5b1d-4e8f-" + (100_000_000 + i);
        }
        for (int i = 0; i < 2 * ids; i++) {
            newRequest();
        }
    }

    @TearDown(Level.Trial)
    public void closeStores() throws IOException {
        stores.forEach(StateStore::close);
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    @Setup(Level.Invocation)
    public void fillCaches() {
        if (cold) {
            int sum = 0;
            for (int at = 0; at < elsewhere.length; at += 64) {
                sum += elsewhere[at];
            }
            elsewhereSum += sum;
        }
    }

    /** One new request: looked up, not found, remembered; an older one forgotten. */
    @Benchmark
    public Decision newRequest() {
        long now = START + sent * WINDOW_MS / ids;
        byte[] id = RequestIds.requestKey(API_KEY, requestIdTexts[(int) (sent % requestIdTexts.length)]);
        Decision original = requestIds.original(id, request, now, planId -> null);
        if (original != null) {
            throw new IllegalStateException("request " + sent + " was found in the window");
        }
        requestIds.remember(id, decision, now);
        if (++sent % PER_COMMIT == 0) {
            batches.flushCache();
        }
        return original;
    }

    /** The ids the window holds now. */
    int heldIds() {
        return requestIds.heldIds();
    }

    /** Nothing but the benchmark's own call and timing, warm or cold: what {@link #newRequest} costs beyond the ids. */
    @Benchmark
    public long nothing() {
        return sent;
    }

    public static void main(String[] args) throws RunnerException {
        ShortJmhRun.run(RequestIdsBenchmarks.class);
    }
}

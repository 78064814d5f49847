package dev.quotaenforcer.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import one.profiler.AsyncProfiler;

/**
 * Samples of this JVM's threads, read back as the share of one application's stream threads' samples
 * by area of the code, so each round of performance work starts from where the time goes rather than
 * from a guess. The shares come from async-profiler's CPU samples where it runs (Linux), which see
 * native frames: a sample inside RocksDB's JNI calls, or the kernel, is charged to the Java code that
 * called it. Elsewhere they come from JFR's execution samples, which see Java frames only. The JFR
 * recording is kept either way, for a closer look with {@code jfr} or JDK Mission Control.
 */
final class StreamThreadProfile implements AutoCloseable {

    /** What a sample is charged to: the first frame from the top of its stack that a rule names. */
    private record Area(String name, List<String> classPrefixes) {
        boolean owns(String className) {
            return classPrefixes.stream().anyMatch(className::startsWith);
        }
    }

    /**
     * Generic code that names no area, so that a sample there is charged to the code that called it: the
     * JDK and Jackson by naming no rule below, Kafka's records, serializers and utilities by this list
     * (a producer's varint writes are the producer's sending, not its caller's polling).
     */
    private static final List<String> GENERIC = List.of("org.apache.kafka.common.utils.",
            "org.apache.kafka.common.record.", "org.apache.kafka.common.serialization.",
            "org.apache.kafka.common.compress.", "org.apache.kafka.common.internals.");
    /** In the order a stack is read, top first; a frame is charged to the first of these that owns it. */
    private static final List<Area> AREAS = List.of(
            new Area("record cache", List.of("org.apache.kafka.streams.state.internals.ThreadCache",
                    "org.apache.kafka.streams.state.internals.NamedCache", "org.apache.kafka.streams.state.internals.Caching",
                    "org.apache.kafka.streams.state.internals.LRUCacheEntry")),
            new Area("state stores (RocksDB, in-memory, changelogging)", List.of("org.rocksdb.",
                    "org.apache.kafka.streams.state.internals.")),
            new Area("reading requests", List.of("dev.quotaenforcer.event.RequestParser", "dev.quotaenforcer.event.RequestScanner",
                    "dev.quotaenforcer.event.Timestamps",
                    "dev.quotaenforcer.topology.RequestIntake", "dev.quotaenforcer.topology.RekeyedInputCheck")),
            new Area("writing decisions and usage", List.of("dev.quotaenforcer.topology.JsonBytes",
                    "dev.quotaenforcer.topology.FieldJsonSerde", "dev.quotaenforcer.topology.JsonSerde",
                    "dev.quotaenforcer.topology.InstantText",
                    "dev.quotaenforcer.topology.ReplyRouting", "dev.quotaenforcer.engine.RateLimitHeaders")),
            new Area("deciding (engine, algorithms, state codec)", List.of("dev.quotaenforcer.engine.",
                    "dev.quotaenforcer.limit.", "dev.quotaenforcer.plan.")),
            new Area("request ids", List.of("dev.quotaenforcer.topology.RequestIds",
                    "dev.quotaenforcer.topology.RequestIdIndex", "dev.quotaenforcer.topology.RequestIdBatch")),
            new Area("key entries and usage counting", List.of("dev.quotaenforcer.topology.UsageLedger",
                    "dev.quotaenforcer.topology.KeyEntry", "dev.quotaenforcer.event.KeyUsage",
                    "dev.quotaenforcer.event.PlanUsage")),
            new Area("write-back stores (changes held until the commit)", List.of(
                    "dev.quotaenforcer.topology.WriteBackStore", "dev.quotaenforcer.topology.DeferredWriteStore",
                    "dev.quotaenforcer.topology.BatchChangelogStore", "dev.quotaenforcer.topology.ChangeBatch")),
            new Area("plans and key assignments in memory", List.of("dev.quotaenforcer.topology.AssignmentCache",
                    "dev.quotaenforcer.topology.PlanCache")),
            new Area("publishing outcomes (and the decision meters)", List.of(
                    "dev.quotaenforcer.topology.OutcomePublisher", "dev.quotaenforcer.topology.DecisionStats")),
            new Area("other enforcer code", List.of("dev.quotaenforcer.")),
            new Area("Kafka Streams per-node work", List.of("org.apache.kafka.streams.processor.internals.ProcessorNode",
                    "org.apache.kafka.streams.processor.internals.SinkNode", "org.apache.kafka.streams.processor.internals.SourceNode",
                    "org.apache.kafka.streams.processor.internals.ProcessorContextImpl",
                    "org.apache.kafka.streams.processor.internals.AbstractProcessorContext",
                    "org.apache.kafka.streams.processor.internals.ProcessorRecordContext",
                    "org.apache.kafka.streams.processor.api.", "org.apache.kafka.streams.kstream.internals.",
                    "org.apache.kafka.common.header.", "org.apache.kafka.common.metrics.",
                    "org.apache.kafka.streams.processor.internals.metrics.")),
            new Area("Kafka Streams sending (record collector, producer)", List.of(
                    "org.apache.kafka.streams.processor.internals.RecordCollector",
                    "org.apache.kafka.streams.processor.internals.StreamsProducer", "org.apache.kafka.clients.producer.")),
            new Area("Kafka Streams polling and committing", List.of("org.apache.kafka.streams.",
                    "org.apache.kafka.clients.", "org.apache.kafka.common.")));
    private static final String UNCHARGED = "JVM and JDK only";

    /** How async-profiler samples here (CPU time through perf events, else a CPU timer), or null where it cannot run. */
    private static final String ASYNC_PROFILER_EVENT = asyncProfilerEvent();
    /** As async-profiler takes it; the report says 5 ms. */
    private static final String ASYNC_PROFILER_INTERVAL = "5ms";

    private final Recording recording = new Recording();
    private final Path file;
    /** Where async-profiler's collapsed stacks go; null when JFR's samples give the shares. */
    private final Path collapsed;

    private StreamThreadProfile(Path file) throws IOException {
        this.file = file;
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
        recording.setToDisk(true);
        recording.start();
        if (ASYNC_PROFILER_EVENT != null) {
            collapsed = file.resolveSibling(file.getFileName().toString().replaceFirst("\\.jfr$", "") + ".collapsed");
            AsyncProfiler.getInstance().execute("start,event=" + ASYNC_PROFILER_EVENT + ",interval="
                    + ASYNC_PROFILER_INTERVAL + ",threads");
        } else {
            collapsed = null;
        }
    }

    /**
     * Starts sampling every thread of this JVM, to be written to {@code file} (a JFR recording, kept) on
     * {@link #shares}, with async-profiler's collapsed stacks beside it where it runs.
     */
    static StreamThreadProfile start(Path file) throws IOException {
        return new StreamThreadProfile(file);
    }

    /** What the shares are of, for the report. */
    static String sampler() {
        if (ASYNC_PROFILER_EVENT == null) {
            return "JFR's execution samples every 10 ms, which see Java frames only";
        }
        String source = ASYNC_PROFILER_EVENT.equals("cpu") ? "perf events" : "a CPU timer";
        return "async-profiler's samples of CPU time every 5 ms (" + source + "), native frames included: time in "
                + "RocksDB's JNI calls or the kernel is charged to the Java code that called it";
    }

    /** The first event async-profiler starts and stops with in this JVM, or null when it cannot (not Linux, say). */
    private static String asyncProfilerEvent() {
        for (String event : List.of("cpu", "itimer")) {
            try {
                AsyncProfiler profiler = AsyncProfiler.getInstance();
                profiler.execute("start,event=" + event + ",interval=" + ASYNC_PROFILER_INTERVAL);
                profiler.execute("stop");
                return event;
            } catch (IOException | RuntimeException | LinkageError e) {
                // This event (or the library) is not available here: the next, or JFR alone.
            }
        }
        return null;
    }

    /**
     * Stops sampling and returns, for the stream threads of {@code application} (whose client ids start
     * with it), each area's share of their samples, largest first, and the sample count under the key {@code ""}.
     */
    Map<String, Double> shares(String application) throws IOException {
        recording.stop();
        recording.dump(file);
        Map<String, Long> counts = new LinkedHashMap<>();
        if (collapsed != null) {
            AsyncProfiler.getInstance().execute("stop,file=" + collapsed + ",collapsed");
            try (BufferedReader lines = Files.newBufferedReader(collapsed)) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    countCollapsed(line, application, counts);
                }
            }
        } else {
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                RecordedThread thread = event.getThread("sampledThread");
                RecordedStackTrace stack = event.getStackTrace();
                if (thread != null && stack != null && isStreamThread(thread.getJavaName(), application)) {
                    counts.merge(area(stack.getFrames()), 1L, Long::sum);
                }
            }
        }
        long samples = counts.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Double> shares = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(entry -> shares.put(entry.getKey(), samples == 0 ? 0 : (double) entry.getValue() / samples));
        shares.put("", (double) samples);
        return shares;
    }

    /**
     * Counts one line of async-profiler's collapsed stacks ({@code [thread tid=n];root;...;top count}) into
     * {@code counts} by area, when its thread is one of {@code application}'s stream threads.
     */
    static void countCollapsed(String line, String application, Map<String, Long> counts) {
        int space = line.lastIndexOf(' ');
        int threadEnd = line.indexOf(" tid=");
        if (!line.startsWith("[") || space < 0 || threadEnd < 0
                || !isStreamThread(line.substring(1, threadEnd), application)) {
            return;
        }
        String[] frames = line.substring(0, space).split(";");
        List<String> classNames = new ArrayList<>(frames.length);
        for (int i = frames.length - 1; i > 0; i--) {
            // Java frames are "package/Class.method"; native ones (a library, a C++ symbol, the kernel's) name no package.
            int method = frames[i].lastIndexOf('.');
            if (frames[i].indexOf('/') > 0 && method > 0 && !frames[i].contains("::")) {
                classNames.add(frames[i].substring(0, method).replace('/', '.'));
            }
        }
        counts.merge(areaOf(classNames), Long.parseLong(line.substring(space + 1)), Long::sum);
    }

    /** A stream thread is named {@code <client id>-StreamThread-<n>}; its producer's network thread carries that name too. */
    static boolean isStreamThread(String threadName, String application) {
        return threadName != null && threadName.startsWith(application) && threadName.contains("-StreamThread-");
    }

    private static String area(List<RecordedFrame> frames) {
        return areaOf(frames.stream().filter(frame -> frame.getMethod() != null && frame.getMethod().getType() != null)
                .map(frame -> frame.getMethod().getType().getName()).toList());
    }

    /** The area a stack of classes (top first) is charged to. */
    static String areaOf(List<String> classNames) {
        for (String className : classNames) {
            if (GENERIC.stream().anyMatch(className::startsWith)) {
                continue;
            }
            for (Area area : AREAS) {
                if (area.owns(className)) {
                    return area.name();
                }
            }
        }
        return UNCHARGED;
    }

    /** Ends the recording, and async-profiler's sampling if {@link #shares} did not; their files stay. */
    @Override
    public void close() {
        recording.close();
        if (collapsed != null) {
            try {
                AsyncProfiler.getInstance().execute("stop");
            } catch (IOException | IllegalStateException e) {
                // Stopped already, by shares.
            }
        }
    }
}

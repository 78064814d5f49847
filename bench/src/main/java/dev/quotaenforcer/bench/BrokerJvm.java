package dev.quotaenforcer.bench;

import dev.quotaenforcer.broker.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A single-node KRaft broker in a JVM of its own, run with the heap and collector settings of Kafka's
 * own start script, so that its allocation and its collections pause nothing the bench measures.
 */
final class BrokerJvm implements AutoCloseable {

    /** {@code kafka-server-start.sh}'s heap and {@code KAFKA_JVM_PERFORMANCE_OPTS}. */
    private static final List<String> JVM_OPTIONS = List.of("-Xmx1G", "-Xms1G", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent");
    private static final String READY = "bench broker serving on ";
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofMinutes(1);

    private final ChildJvm process;
    private final String bootstrapServers;

    private BrokerJvm(ChildJvm process, String bootstrapServers) {
        this.process = process;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts a broker keeping its data in {@code dataDir}, its output in {@code log} and, as
     * {@code kafka-run-class.sh} does, its collections in a GC log beside it; waits until it serves.
     */
    static BrokerJvm start(Path dataDir, Path log) throws InterruptedException {
        int port = EmbeddedKafka.freePort();
        int controllerPort = EmbeddedKafka.freePort();
        List<String> jvm = new ArrayList<>(JVM_OPTIONS);
        jvm.add("-Xlog:gc*:file=" + log.resolveSibling(log.getFileName() + ".gc") + ":time,tags");
        ChildJvm process = ChildJvm.startAndAwait("the broker", jvm, BrokerJvm.class.getName(),
                List.of(dataDir.toString(), Integer.toString(port), Integer.toString(controllerPort)), log, READY,
                READY_TIMEOUT);
        return new BrokerJvm(process, "localhost:" + port);
    }

    /** The broker's CPU so far, every thread, in ns; NaN where the platform cannot tell. */
    double cpuNanos() {
        return process.cpuNanos();
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public void close() throws InterruptedException {
        process.stopAndClose(STOP_TIMEOUT);
    }

    /**
     * Runs the broker until SIGTERM or until its standard input closes: the bench that started it
     * holds the other end, so a bench killed outright does not leave a broker behind.
     *
     * @param args the data directory, the port and the controller's port
     */
    public static void main(String[] args) throws IOException {
        EmbeddedKafka broker = EmbeddedKafka.start(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "broker-shutdown"));
        System.out.println(READY + broker.bootstrapServers());
        System.out.flush();
        ChildJvm.awaitParentGone();
        System.exit(0);
    }
}

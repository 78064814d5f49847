package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.TopicDefinitions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs the enforcer until Ctrl-C or SIGTERM, on an embedded broker unless a cluster is given. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Runs the enforcer until stopped (Ctrl-C or SIGTERM).",
                "With no cluster named, starts a real single-node Kafka broker in this process (data under --data-dir, "
                        + "on localhost:--port), creates the topics of topics/ and loads the sample plans and keys on "
                        + "first start. With a cluster, starts no broker and expects the topics to exist "
                        + "(see `topics apply`, or pass --apply-topics)."})
final class RunCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(5);

    @Mixin
    ClusterOptions cluster;

    @Mixin
    EmbeddedBrokerOptions embedded;

    @Option(names = "--topics-dir", paramLabel = "DIR",
            description = "Topic definitions and seed records to use instead of those in the jar (a topics/ directory).")
    Path topicsDir;

    @Option(names = "--apply-topics",
            description = "On a named cluster, create missing topics (and seed the sample plans if the plans topic is new).")
    boolean applyTopics;

    @Override
    public Integer call() throws Exception {
        TopicDefinitions definitions = topicsDir == null ? TopicDefinitions.bundled() : TopicDefinitions.load(topicsDir);
        CountDownLatch shutdown = new CountDownLatch(1);
        Stack stack = Stack.start(cluster.settings(), embedded, embedded.dataDirOr(Path.of("data")), definitions, applyTopics);
        Thread hook = new Thread(() -> {
            LOG.info("Stopping");
            stack.close();
            shutdown.countDown();
        }, "quota-enforcer-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        if (!stack.awaitReady(READY_TIMEOUT) && !stack.enforcer().failed()) {
            LOG.warn("Not ready after {}; still trying", READY_TIMEOUT);
        }
        stack.enforcer().awaitStop();
        if (stack.enforcer().failed()) {
            Runtime.getRuntime().removeShutdownHook(hook);
            stack.close();
            LOG.error("Kafka Streams stopped in state ERROR; exiting");
            return 1;
        }
        shutdown.await();
        return 0;
    }
}

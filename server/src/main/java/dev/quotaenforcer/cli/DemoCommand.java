package dev.quotaenforcer.cli;

import dev.quotaenforcer.admin.CatalogClient;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.demo.GatewaySimulator;
import dev.quotaenforcer.demo.LiveTable;
import dev.quotaenforcer.admin.ClientSettings;
import dev.quotaenforcer.topology.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs the enforcer with synthetic gateway traffic and a live per-key table. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Starts the enforcer (on an embedded broker in a temporary directory unless told otherwise) with a "
                + "synthetic gateway: three well-behaved keys, one bursty key and one that runs through its hourly "
                + "quota, and prints a live per-key table of allowed and denied requests. Ctrl-C stops it."})
final class DemoCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Mixin
    EmbeddedBrokerOptions embedded;

    @Option(names = "--duration", paramLabel = "DURATION",
            description = "Stop after this long (ISO-8601, e.g. PT2M). Default: run until Ctrl-C.")
    Duration duration;

    @Option(names = "--refresh", paramLabel = "DURATION", defaultValue = "PT2S",
            description = "How often the table is reprinted. Default: ${DEFAULT-VALUE}.")
    Duration refresh;

    @Override
    public Integer call() throws Exception {
        Path dataDir = embedded.dataDir != null ? embedded.dataDir : Files.createTempDirectory("quota-enforcer-demo");
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "quota-enforcer-demo-stop"));
        try (Stack stack = Stack.start(cluster.settings(), embedded, dataDir, TopicDefinitions.bundled(), true)) {
            Topics topics = Topics.withPrefix(new EnforcerConfig(stack.settings()).topicPrefix());
            CatalogClient catalog = new CatalogClient(stack.settings(), topics);
            for (GatewaySimulator.Client client : GatewaySimulator.CLIENTS) {
                catalog.assignKey(client.apiKey(), client.plan());
                System.out.printf("%-15s on %-5s: %s%n", client.apiKey(), client.plan(), client.behaviour());
            }
            Map<String, String> assignments = new HashMap<>();
            GatewaySimulator.CLIENTS.forEach(client -> assignments.put(client.apiKey(), client.plan()));
            if (!stack.awaitReady(Duration.ofMinutes(2)) || !stack.awaitInForce(assignments, Duration.ofMinutes(1))) {
                System.err.println("the enforcer did not become ready");
                return 1;
            }
            long deadline = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
            try (GatewaySimulator gateway = new GatewaySimulator(ClientSettings.forProducer(stack.settings()),
                    topics.requests().name());
                 LiveTable table = new LiveTable(ClientSettings.forConsumer(stack.settings()), topics.decisions(),
                         System.out)) {
                gateway.start();
                while (stop.getCount() > 0 && System.nanoTime() < deadline && !stack.enforcer().failed()) {
                    table.refresh(refresh, gateway.sent());
                }
            }
            return stack.enforcer().failed() ? 1 : 0;
        } finally {
            if (embedded.dataDir == null) {
                deleteRecursively(dataDir);
            }
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}

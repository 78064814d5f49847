package dev.quotaenforcer.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the embedded broker keeps its data and listens, when no cluster is given. */
final class EmbeddedBrokerOptions {

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "data",
            description = "Directory for the embedded broker's data (DIR/kafka) and the enforcer's state stores "
                    + "(DIR/state) when no cluster is given. Default: ${DEFAULT-VALUE}.")
    Path dataDir;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "9092",
            description = "Port of the embedded broker on localhost. Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--controller-port", paramLabel = "PORT", defaultValue = "9093",
            description = "Port of the embedded broker's KRaft controller on localhost. Default: ${DEFAULT-VALUE}.")
    int controllerPort;
}

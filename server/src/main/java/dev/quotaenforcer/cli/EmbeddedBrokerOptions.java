package dev.quotaenforcer.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where the embedded broker keeps its data and listens, when no cluster is given. */
final class EmbeddedBrokerOptions {

    /** The data directory given, or {@code fallback}. */
    Path dataDirOr(Path fallback) {
        return dataDir == null ? fallback : dataDir;
    }

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Directory for the embedded broker's data (DIR/kafka) and the enforcer's state stores "
                    + "(DIR/state) when no cluster is given. Default: ./data for run, a temporary directory for demo.")
    Path dataDir;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "9092",
            description = "Port of the embedded broker on localhost. Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--controller-port", paramLabel = "PORT", defaultValue = "9093",
            description = "Port of the embedded broker's KRaft controller on localhost. Default: ${DEFAULT-VALUE}.")
    int controllerPort;
}

package dev.quotaenforcer.it;

import dev.quotaenforcer.broker.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension: one real in-process KRaft broker (the same {@link EmbeddedKafka} that {@code run}
 * starts) for the whole test run, shut down after the last test. Tests get a {@link TestCluster} on it
 * and keep apart by topic prefix and application id.
 */
public final class KafkaBroker implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaBroker.class);

    /** Closes the broker and deletes its data when the root context closes. */
    private record Running(EmbeddedKafka kafka, Path dataDir) implements AutoCloseable {
        @Override
        public void close() {
            kafka.close();
            try (Stream<Path> files = Files.walk(dataDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Running running = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent("broker", key -> start(), Running.class);
        return new TestCluster(running.kafka().bootstrapServers(), context);
    }

    private static Running start() {
        try {
            Path dataDir = Files.createTempDirectory("quota-enforcer-it-broker");
            EmbeddedKafka kafka = EmbeddedKafka.start(dataDir, EmbeddedKafka.freePort(), EmbeddedKafka.freePort());
            return new Running(kafka, dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

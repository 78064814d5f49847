package dev.quotaenforcer.admin;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The topics the application owns and the sample plans and keys loaded on first start, read from
 * {@code topics/} (packed into the jar, or a directory given on the command line). Names there use
 * the default prefix {@code quota}; {@link #withPrefix} renames them for another prefix.
 */
public final class TopicDefinitions {

    static final String DEFAULT_PREFIX = "quota";
    private static final String FILE = "topics.yaml";
    private static final String RESOURCE_DIR = "topics/";

    private record File(List<Topic> topics, Seed seed) {
    }

    private record Topic(String name, int partitions, short replicationFactor, Map<String, String> configs) {
    }

    private record Seed(List<String> plans, Map<String, String> apiKeys) {
    }

    private final List<TopicDefinition> topics;
    private final List<String> seedPlanFiles;
    private final Map<String, String> seedApiKeys;
    private final Path directory;

    private TopicDefinitions(List<TopicDefinition> topics, List<String> seedPlanFiles, Map<String, String> seedApiKeys,
                             Path directory) {
        this.topics = List.copyOf(topics);
        this.seedPlanFiles = List.copyOf(seedPlanFiles);
        this.seedApiKeys = Map.copyOf(seedApiKeys);
        this.directory = directory;
    }

    /** The definitions shipped in the jar. */
    public static TopicDefinitions bundled() {
        try (InputStream in = resource(FILE)) {
            return parse(in, "classpath:" + RESOURCE_DIR + FILE, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The definitions in a {@code topics/} directory. */
    public static TopicDefinitions load(Path directory) {
        Path file = directory.resolve(FILE);
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString(), directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static TopicDefinitions parse(InputStream in, String source, Path directory) throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory()).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        File file = yaml.readValue(in, File.class);
        if (file.topics() == null || file.topics().isEmpty()) {
            throw new IllegalArgumentException(source + ": topics: at least one topic is needed");
        }
        List<TopicDefinition> topics = file.topics().stream().map(t -> {
            if (t.name() == null || t.partitions() < 1 || t.replicationFactor() < 1) {
                throw new IllegalArgumentException(source + ": topic " + t + " needs a name, partitions >= 1 and "
                        + "replicationFactor >= 1");
            }
            return new TopicDefinition(t.name(), t.partitions(), t.replicationFactor(),
                    t.configs() == null ? Map.of() : t.configs());
        }).toList();
        Seed seed = file.seed() == null ? new Seed(List.of(), Map.of()) : file.seed();
        return new TopicDefinitions(topics, seed.plans() == null ? List.of() : seed.plans(),
                seed.apiKeys() == null ? Map.of() : seed.apiKeys(), directory);
    }

    public List<TopicDefinition> topics() {
        return topics;
    }

    /** The definition of {@code name}, which must be declared. */
    public TopicDefinition topic(String name) {
        return topics.stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("topic " + name + " is not declared in topics/" + FILE));
    }

    /** The same topics under another prefix: {@code quota.requests} becomes {@code <prefix>.requests}. */
    public TopicDefinitions withPrefix(String prefix) {
        List<TopicDefinition> renamed = topics.stream().map(t -> new TopicDefinition(
                t.name().startsWith(DEFAULT_PREFIX + ".") ? prefix + t.name().substring(DEFAULT_PREFIX.length()) : t.name(),
                t.partitions(), t.replicationFactor(), t.configs())).toList();
        return new TopicDefinitions(renamed, seedPlanFiles, seedApiKeys, directory);
    }

    /** The same topics with {@code topic} given another partition count. */
    public TopicDefinitions withPartitions(String topic, int partitions) {
        List<TopicDefinition> resized = topics.stream().map(t -> t.name().equals(topic)
                ? new TopicDefinition(t.name(), partitions, t.replicationFactor(), t.configs()) : t).toList();
        return new TopicDefinitions(resized, seedPlanFiles, seedApiKeys, directory);
    }

    /** The same topics with every replication factor set, e.g. 3 for a production cluster. */
    public TopicDefinitions withReplicationFactor(short replicationFactor) {
        List<TopicDefinition> replicated = topics.stream().map(t -> new TopicDefinition(t.name(), t.partitions(),
                replicationFactor, t.configs())).toList();
        return new TopicDefinitions(replicated, seedPlanFiles, seedApiKeys, directory);
    }

    /** The sample plans' JSON, by file, in declaration order. */
    public Map<String, byte[]> seedPlans() {
        Map<String, byte[]> plans = new LinkedHashMap<>();
        for (String file : seedPlanFiles) {
            try (InputStream in = directory == null ? resource(file) : Files.newInputStream(directory.resolve(file))) {
                plans.put(file, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read seed plan " + file, e);
            }
        }
        return plans;
    }

    /** The sample key assignments: API key to plan id. */
    public Map<String, String> seedApiKeys() {
        return seedApiKeys;
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = TopicDefinitions.class.getClassLoader().getResourceAsStream(RESOURCE_DIR + name);
        return Objects.requireNonNull(in, () -> "the jar lacks " + RESOURCE_DIR + name);
    }
}

package dev.quotaenforcer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.quotaenforcer.broker.EmbeddedKafka;
import dev.quotaenforcer.cli.QuotaEnforcerCommand;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.topology.Topics;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import kafka.server.KafkaConfig;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** The docker-compose stack is wired consistently: pinned images, listeners and ports, settings, start order, topics. */
class DockerComposeTest {

    private static final Path COMPOSE_FILE = RepositoryFiles.path("docker-compose.yml");
    private static final String BROKER = "kafka";
    private static final String INITIALISER = "topics-init";
    private static final String ENFORCER = "enforcer";
    private static final String JAR_IN_CONTAINER = "/app/quota-enforcer.jar";
    /** A Kafka client thread that dies of OutOfMemoryError would leave a process that decides nothing. */
    private static final String EXIT_ON_OOM = "-XX:+ExitOnOutOfMemoryError";

    /** A listener: {@code NAME://host:port}. */
    private record Listener(String name, String host, int port) {
        static List<Listener> parseAll(String value) {
            List<Listener> listeners = new ArrayList<>();
            Matcher m = Pattern.compile("([A-Za-z0-9_]+)://([^:,]*):(\\d+)").matcher(value);
            while (m.find()) {
                listeners.add(new Listener(m.group(1), m.group(2), Integer.parseInt(m.group(3))));
            }
            assertEquals(value.split(",").length, listeners.size(), "every listener is NAME://host:port in " + value);
            return listeners;
        }
    }

    /** A published port: host address (may be empty), host port, container port. */
    private record PortMapping(String hostIp, int published, int target) {
    }

    private static JsonNode compose;
    private static JsonNode services;

    @BeforeAll
    static void readComposeFile() throws IOException {
        compose = new ObjectMapper(new YAMLFactory()).readTree(COMPOSE_FILE.toFile());
        services = compose.path("services");
        assertTrue(services.isObject(), "docker-compose.yml has services");
        for (String name : List.of(BROKER, INITIALISER, ENFORCER)) {
            assertTrue(services.has(name), "service " + name + " is defined");
        }
    }

    @Test
    void everyImageIsPinnedToAVersionNeverLatest() {
        services.properties().forEach(service -> {
            // A service built from the Dockerfile runs on the Dockerfile's base images.
            List<String> images = service.getValue().has("build")
                    ? DockerfileInstructions.read().stages().stream().map(DockerfileInstructions.Stage::image).toList()
                    : List.of(service.getValue().path("image").asText(""));
            for (String image : images) {
                Matcher m = Pattern.compile("([^:@]+):([^:@]+)(@sha256:[0-9a-f]{64})?").matcher(image);
                assertTrue(m.matches(), service.getKey() + ": image " + image + " has a tag");
                String tag = m.group(2);
                assertFalse(tag.equalsIgnoreCase("latest"), service.getKey() + ": image " + image + " is not :latest");
                assertTrue(tag.matches("\\d+(\\.\\d+)+.*"), service.getKey() + ": tag of " + image + " is a full version");
            }
        });
        assertTrue(image(BROKER).startsWith("apache/kafka:"), "the broker is the official Apache Kafka image");
        for (String service : List.of(INITIALISER, ENFORCER)) {
            Matcher java = Pattern.compile("eclipse-temurin:(\\d+)\\..*-jre.*").matcher(image(service));
            assertTrue(java.matches(), service + " runs on a Temurin JRE: " + image(service));
            assertTrue(Integer.parseInt(java.group(1)) >= 17, service + " has Java 17 or later");
        }
    }

    @Test
    void brokerSettingsAreAValidSingleNodeKraftConfiguration() {
        Properties props = brokerProperties();
        KafkaConfig config = KafkaConfig.fromProps(props);
        assertEquals(Set.of("broker", "controller"),
                Set.of(props.getProperty("process.roles").split(",")), "one node is broker and controller");
        assertEquals(1, config.nodeId());
        String clusterId = env(BROKER).get("CLUSTER_ID");
        assertNotNull(clusterId, "CLUSTER_ID is fixed so the volume's storage and the config agree");
        assertEquals(clusterId, Uuid.fromString(clusterId).toString(), "CLUSTER_ID is a Kafka UUID");
        for (String replicas : List.of("offsets.topic.replication.factor", "transaction.state.log.replication.factor",
                "transaction.state.log.min.isr", "share.coordinator.state.topic.replication.factor",
                "share.coordinator.state.topic.min.isr", "default.replication.factor", "min.insync.replicas")) {
            assertEquals("1", props.getProperty(replicas), replicas + " is 1 on a single node (exactly-once needs "
                    + "the transaction log to be creatable)");
        }
        assertEquals("false", props.getProperty("auto.create.topics.enable"), "topics come from topics/ only");
        assertEquals(Integer.toString(EmbeddedKafka.ADD_PARTITIONS_RETRY_BACKOFF_MS),
                props.getProperty(EmbeddedKafka.ADD_PARTITIONS_RETRY_BACKOFF_MS_CONFIG),
                "the broker retries adding a partition to a completing transaction as soon as the embedded broker does");
        String dataDir = props.getProperty("log.dirs");
        assertTrue(volumeTargets(BROKER).contains(dataDir), "the broker's log.dirs " + dataDir + " is a volume");
    }

    @Test
    void enforcerAndInitialiserBootstrapFromTheBrokersComposeNetworkListener() {
        Listener network = composeNetworkListener();
        String address = network.host() + ":" + network.port();
        assertEquals(address, env(ENFORCER).get("QUOTA_ENFORCER_BOOTSTRAP_SERVERS"), "enforcer bootstrap.servers");
        List<String> init = command(INITIALISER);
        int flag = init.indexOf("--bootstrap-servers");
        assertTrue(flag >= 0 && flag + 1 < init.size(), "the initialiser names the cluster: " + init);
        assertEquals(address, init.get(flag + 1), "initialiser --bootstrap-servers");
        assertEquals("kafka:9092", address, "the README's compose address");
    }

    @Test
    void everyQuotaEnforcerVariableIsAKnownSettingWithAValidValue() {
        Set<String> known = new TreeSet<>(EnforcerConfig.definition().names());
        known.addAll(StreamsConfig.configDef().names());
        known.addAll(ConsumerConfig.configNames());
        known.addAll(ProducerConfig.configNames());
        known.addAll(AdminClientConfig.configNames());
        for (String service : List.of(INITIALISER, ENFORCER)) {
            Map<String, String> env = env(service);
            // The application's own mapping of QUOTA_ENFORCER_<NAME> to settings.
            Settings settings = Settings.load(null, env, Map.of());
            env.keySet().stream().filter(name -> name.startsWith(Settings.ENV_PREFIX)).forEach(name -> {
                String setting = name.substring(Settings.ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
                assertTrue(known.contains(setting), service + ": " + name + " sets " + setting
                        + ", which is neither a quota-enforcer nor a Kafka Streams or client setting");
                assertTrue(settings.has(setting), service + ": " + name + " is read as " + setting);
            });
            if (!env.isEmpty()) {
                settings.validate();
            }
        }
        assertEquals("/var/lib/quota-enforcer", env(ENFORCER).get("QUOTA_ENFORCER_STATE_DIR"));
    }

    @Test
    void enforcerStateDirectoryIsAVolumeSoStateOutlivesTheContainer() {
        String stateDir = env(ENFORCER).get("QUOTA_ENFORCER_STATE_DIR");
        assertNotNull(stateDir, "the enforcer sets its state.dir");
        List<String> volumes = new ArrayList<>();
        service(ENFORCER).path("volumes").forEach(volume -> {
            String[] parts = volume.asText().split(":");
            if (parts.length >= 2 && parts[1].equals(stateDir)) {
                volumes.add(parts[0]);
            }
        });
        assertEquals(1, volumes.size(), "one volume holds " + stateDir);
        assertTrue(compose.path("volumes").has(volumes.get(0)), "it is a named volume: " + volumes.get(0));
    }

    @Test
    void initialiserRunsTopicsApplyAndEnforcerRunsRunWithValidCommandLines() {
        assertEquals(List.of("topics", "apply"), subcommands(INITIALISER));
        assertEquals(List.of("run"), subcommands(ENFORCER));
    }

    @Test
    void bothJavaServicesRunTheImageTheDockerfileBuildsWithItsJvmFlags() {
        for (String service : List.of(INITIALISER, ENFORCER)) {
            JsonNode build = service(service).path("build");
            assertEquals(".", build.path("context").asText(), service + " builds from the repository");
            assertEquals(DockerfileInstructions.FILE.getFileName().toString(), build.path("dockerfile").asText(),
                    service + " builds the Dockerfile");
            List<String> mounts = new ArrayList<>();
            service(service).path("volumes").forEach(volume -> mounts.add(volume.asText()));
            assertTrue(mounts.stream().noneMatch(mount -> mount.contains(JAR_IN_CONTAINER)),
                    service + " runs the image's jar, not one mounted from the host: " + mounts);
            assertTrue(commandLine(service).contains(EXIT_ON_OOM), service + "'s JVM exits on OutOfMemoryError: "
                    + commandLine(service));
        }
    }

    @Test
    void enforcerStartsOnlyAfterTheInitialiserCompletedSuccessfully() {
        JsonNode dependsOn = service(ENFORCER).path("depends_on");
        assertTrue(dependsOn.isObject(), "depends_on uses the long form, with conditions");
        assertEquals("service_completed_successfully", dependsOn.path(INITIALISER).path("condition").asText());
        JsonNode initDependsOn = service(INITIALISER).path("depends_on");
        assertEquals("service_healthy", initDependsOn.path(BROKER).path("condition").asText(),
                "the initialiser waits for a healthy broker");
        assertTrue(service(BROKER).path("healthcheck").path("test").isArray(), "the broker has a health check");
        assertTrue(service(INITIALISER).path("restart").asText("no").equals("no"), "the initialiser is one-shot");
    }

    @Test
    void publishedPortsLeadToTheListenerAdvertisedForTheHost() {
        List<Listener> listeners = Listener.parseAll(brokerProperties().getProperty("listeners"));
        List<Listener> advertised = Listener.parseAll(brokerProperties().getProperty("advertised.listeners"));
        String controllers = brokerProperties().getProperty("controller.listener.names");
        List<PortMapping> ports = portMappings(BROKER);
        assertFalse(ports.isEmpty(), "the broker is reachable from the host");
        Set<String> published = new HashSet<>();
        for (PortMapping port : ports) {
            Listener bound = listeners.stream().filter(l -> l.port() == port.target()).findFirst()
                    .orElseThrow(() -> new AssertionError("published container port " + port.target()
                            + " is no broker listener: " + listeners));
            assertFalse(controllers.contains(bound.name()), "the controller listener is not published");
            Listener announced = advertised.stream().filter(l -> l.name().equals(bound.name())).findFirst()
                    .orElseThrow(() -> new AssertionError("listener " + bound.name() + " is not advertised"));
            assertTrue(Set.of("localhost", "127.0.0.1").contains(announced.host()),
                    "listener " + bound.name() + " published to the host advertises a host address: " + announced);
            assertEquals(port.published(), announced.port(), "clients on the host reconnect to the advertised port "
                    + "of " + bound.name() + ", so it must be the published one");
            assertTrue(port.hostIp().isEmpty() || Set.of("127.0.0.1", "0.0.0.0").contains(port.hostIp()),
                    "published on " + port.hostIp());
            published.add(bound.name());
        }
        advertised.stream().filter(l -> Set.of("localhost", "127.0.0.1").contains(l.host()))
                .forEach(l -> assertTrue(published.contains(l.name()), "advertised host listener " + l + " is published"));
        assertTrue(ports.stream().anyMatch(p -> p.published() == 9092),
                "the README's localhost:9092 reaches the compose broker too");
    }

    @Test
    void topicDefinitionsNameExactlyTheTopicsTheApplicationUses() throws IOException {
        JsonNode definitions = new ObjectMapper(new YAMLFactory()).readTree(RepositoryFiles.path("topics", "topics.yaml").toFile());
        List<String> declared = new ArrayList<>();
        definitions.path("topics").forEach(topic -> declared.add(topic.path("name").asText()));
        assertEquals(declared.size(), new HashSet<>(declared).size(), "no topic is declared twice: " + declared);
        assertEquals(new TreeSet<>(Topics.withPrefix("quota").names()), new TreeSet<>(declared));
    }

    @Test
    void dockerComposeCliAcceptsTheFileWhenInstalled() throws IOException, InterruptedException {
        Path cli = onPath("docker-compose");
        if (cli == null) {
            System.out.println("DockerComposeTest: docker-compose is not on the PATH; the YAML checks ran, "
                    + "the docker-compose CLI validation (config -q) was not available");
            return;
        }
        Path output = Files.createTempFile("docker-compose-config", ".log");
        try {
            Process process = new ProcessBuilder(cli.toString(), "-f", COMPOSE_FILE.toString(), "config", "-q")
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail("docker-compose config -q did not finish within 60 s");
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), "docker-compose config -q: " + printed);
            System.out.println("DockerComposeTest: docker-compose config -q accepted docker-compose.yml (" + cli + ")");
        } finally {
            Files.deleteIfExists(output);
        }
    }

    // ---- reading the compose file

    private static JsonNode service(String name) {
        return services.path(name);
    }

    /** The service's image, or the runtime base of the Dockerfile it builds. */
    private static String image(String service) {
        return service(service).has("build") ? DockerfileInstructions.read().runtime().image()
                : service(service).path("image").asText("");
    }

    /** The service's environment, from either the map or the list form. */
    private static Map<String, String> env(String service) {
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode node = service(service).path("environment");
        if (node.isObject()) {
            node.properties().forEach(e -> env.put(e.getKey(), e.getValue().asText()));
        } else {
            node.forEach(item -> {
                String[] parts = item.asText().split("=", 2);
                env.put(parts[0], parts.length > 1 ? parts[1] : "");
            });
        }
        return env;
    }

    /** The service's command as a list of words, from either the list or the string form. */
    private static List<String> command(String service) {
        JsonNode node = service(service).path("command");
        List<String> words = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(word -> words.add(word.asText()));
        } else {
            words.addAll(List.of(node.asText().trim().split("\\s+")));
        }
        return words;
    }

    /** What the container runs: a built image's entrypoint followed by the service's command (which replaces CMD). */
    private static List<String> commandLine(String service) {
        List<String> line = new ArrayList<>();
        if (service(service).has("build")) {
            line.addAll(DockerfileInstructions.read().entrypoint());
        }
        line.addAll(command(service));
        return line;
    }

    /** The quota-enforcer subcommands the service's command line runs, parsed by the application's own CLI. */
    private static List<String> subcommands(String service) {
        List<String> command = commandLine(service);
        int jar = command.indexOf("-jar");
        assertTrue(jar >= 0 && command.get(0).equals("java"), service + " runs java -jar: " + command);
        assertEquals(JAR_IN_CONTAINER, command.get(jar + 1), service + " runs the image's jar");
        List<String> args = command.subList(jar + 2, command.size());
        ParseResult parsed = new CommandLine(new QuotaEnforcerCommand()).parseArgs(args.toArray(String[]::new));
        List<String> names = new ArrayList<>();
        for (ParseResult sub = parsed.subcommand(); sub != null; sub = sub.subcommand()) {
            names.add(sub.commandSpec().name());
        }
        return names;
    }

    private static List<String> volumeTargets(String service) {
        List<String> targets = new ArrayList<>();
        service(service).path("volumes").forEach(volume -> {
            String[] parts = volume.asText().split(":");
            if (parts.length >= 2) {
                targets.add(parts[1]);
            }
        });
        return targets;
    }

    /**
     * The broker's server properties as the apache/kafka image derives them from KAFKA_* variables:
     * drop the prefix, {@code ___} is '-', {@code __} is '_', {@code _} is '.', lower case.
     */
    private static Properties brokerProperties() {
        Properties props = new Properties();
        env(BROKER).forEach((name, value) -> {
            if (name.startsWith("KAFKA_") && !name.startsWith("KAFKA_LOG4J_") && !name.equals("KAFKA_HEAP_OPTS")
                    && !name.equals("KAFKA_OPTS") && !name.equals("KAFKA_JVM_PERFORMANCE_OPTS")) {
                String key = name.substring("KAFKA_".length()).replace("___", "-").replace("__", "\u0000")
                        .replace('_', '.').replace('\u0000', '_').toLowerCase(Locale.ROOT);
                props.setProperty(key, value);
            }
        });
        return props;
    }

    /** The advertised listener other containers use: its host is the broker's name on the compose network. */
    private static Listener composeNetworkListener() {
        Properties props = brokerProperties();
        Set<String> networkNames = new HashSet<>(List.of(BROKER, service(BROKER).path("hostname").asText(BROKER)));
        List<Listener> onNetwork = Listener.parseAll(props.getProperty("advertised.listeners")).stream()
                .filter(l -> networkNames.contains(l.host())).toList();
        assertEquals(1, onNetwork.size(), "one advertised listener for the compose network: " + onNetwork);
        Listener listener = onNetwork.get(0);
        assertTrue(Listener.parseAll(props.getProperty("listeners")).stream()
                        .anyMatch(l -> l.name().equals(listener.name()) && l.port() == listener.port()),
                "the compose network listener " + listener + " is bound on its advertised port");
        return listener;
    }

    private static List<PortMapping> portMappings(String service) {
        List<PortMapping> mappings = new ArrayList<>();
        service(service).path("ports").forEach(port -> {
            if (port.isObject()) {
                mappings.add(new PortMapping(port.path("host_ip").asText(""), port.path("published").asInt(),
                        port.path("target").asInt()));
                return;
            }
            String[] parts = port.asText().replaceAll("/(tcp|udp)$", "").split(":");
            assertTrue(parts.length >= 2, "port " + port.asText() + " is published on a fixed host port");
            mappings.add(new PortMapping(parts.length == 3 ? parts[0] : "", Integer.parseInt(parts[parts.length - 2]),
                    Integer.parseInt(parts[parts.length - 1])));
        });
        return mappings;
    }

    private static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir, program);
            if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}

package dev.quotaenforcer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.quotaenforcer.admin.TopicDefinitions;
import dev.quotaenforcer.cli.QuotaEnforcerCommand;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.http.AccessTokens;
import dev.quotaenforcer.http.OperatorServer;
import dev.quotaenforcer.topology.Topics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * deploy/kubernetes/ parses into Kubernetes' typed model and agrees with the code and the image:
 * probe routes, settings, ports, the state directory, selectors, the user, memory and identity.
 */
class DeploymentManifestsTest {

    private static final Path DIR = RepositoryFiles.path("deploy", "kubernetes");
    /** README, Memory per active key: RSS is about -Xmx plus quota.rocksdb.memory.bytes plus 200 MiB. */
    private static final long RSS_OVERHEAD_BYTES = 200L * 1024 * 1024;
    private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
    private static final Pattern HEAP = Pattern.compile("(?:^|\\s)-Xmx(\\d+)([kmgKMG]?)(?:\\s|$)");

    private static final Map<String, HasMetadata> manifests = new LinkedHashMap<>();
    private static JsonNode kustomization;
    private static StatefulSet statefulSet;
    private static Container container;
    private static DockerfileInstructions dockerfile;

    @BeforeAll
    static void readManifests() throws IOException {
        kustomization = new ObjectMapper(new YAMLFactory()).readTree(DIR.resolve("kustomization.yaml").toFile());
        KubernetesSerialization serialization = new KubernetesSerialization();
        for (JsonNode resource : kustomization.path("resources")) {
            try (InputStream in = Files.newInputStream(DIR.resolve(resource.asText()))) {
                Object parsed = serialization.unmarshal(in);
                assertTrue(parsed instanceof HasMetadata && !(parsed instanceof GenericKubernetesResource),
                        resource.asText() + " is one resource of a kind the typed model knows: " + parsed);
                manifests.put(resource.asText(), (HasMetadata) parsed);
            }
        }
        statefulSet = only(StatefulSet.class);
        List<Container> containers = statefulSet.getSpec().getTemplate().getSpec().getContainers();
        assertEquals(1, containers.size(), "one container per pod");
        container = containers.get(0);
        dockerfile = DockerfileInstructions.read();
    }

    @Test
    void everyManifestIsListedAndHasNoFieldTheModelDoesNotKnow() throws IOException {
        Set<String> files;
        try (Stream<Path> list = Files.list(DIR)) {
            files = list.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml") || n.endsWith(".yml"))
                    .filter(n -> !n.equals("kustomization.yaml")).collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(files, new TreeSet<>(manifests.keySet()), "kustomization.yaml lists every manifest, once");
        assertEquals(files.size(), kustomization.path("resources").size(), "no manifest is listed twice");
        manifests.forEach((file, resource) -> {
            List<String> unknown = new ArrayList<>();
            unknownFields(resource, resource.getKind(), unknown);
            assertEquals(List.of(), unknown, file + ": fields the Kubernetes model does not have (misspelt or misplaced)");
        });
        List<String> overridden = new ArrayList<>();
        kustomization.path("images").forEach(image -> overridden.add(image.path("name").asText()));
        assertTrue(overridden.contains(container.getImage()), "kustomization.yaml's images: sets the enforcer's image "
                + container.getImage() + ": " + overridden);
    }

    @Test
    void probesAskTheServersOwnHealthRoutesOnTheHttpPort() {
        assertProbe("startup", container.getStartupProbe(), OperatorServer.LIVE_PATH);
        assertProbe("liveness", container.getLivenessProbe(), OperatorServer.LIVE_PATH);
        assertProbe("readiness", container.getReadinessProbe(), OperatorServer.READY_PATH);
        assertEquals(List.of(httpPort()), container.getPorts().stream().map(p -> p.getContainerPort()).toList(),
                "the container's one port is " + EnforcerConfig.HTTP_PORT_CONFIG);
    }

    @Test
    void everySettingIsARealOneWithAValidValueAndPasswordsComeFromTheSecret() {
        Map<String, String> file = configFile();
        Set<String> known = KnownSettings.names();
        for (String key : file.keySet()) {
            assertTrue(known.contains(key), "the ConfigMap's " + key + " is a setting of the enforcer, Kafka Streams "
                    + "or a client");
            assertFalse(KnownSettings.isPassword(key), "the ConfigMap holds no password: " + key);
        }
        Map<String, String> env = effectiveEnvironment();
        for (String variable : env.keySet()) {
            String setting = KnownSettings.fromEnvironment(variable);
            if (setting != null) {
                assertTrue(known.contains(setting), variable + " sets " + setting + ", which is no setting");
                assertFalse(file.containsKey(setting), "the ConfigMap sets " + setting + ", which " + variable
                        + " of the image or the pod overrides");
            }
        }
        for (EnvVar variable : container.getEnv()) {
            String setting = KnownSettings.fromEnvironment(variable.getName());
            if (setting != null && KnownSettings.isPassword(setting)) {
                assertNotNull(variable.getValueFrom() == null ? null : variable.getValueFrom().getSecretKeyRef(),
                        variable.getName() + " is a password: it comes from the Secret");
            }
        }
        settings().validate();
    }

    @Test
    void theImagesEntrypointRunsTheEnforcerOnTheConfigMapsFile() {
        assertTrue(container.getCommand() == null || container.getCommand().isEmpty(),
                "no command: the image's entrypoint, with its JVM flags, stays");
        ParseResult parsed = new CommandLine(new QuotaEnforcerCommand())
                .parseArgs(container.getArgs().toArray(String[]::new));
        ParseResult run = parsed.subcommand();
        assertEquals("run", run.commandSpec().name(), "the pods run the enforcer");
        Path config = run.matchedOptionValue("--config", null);
        assertNotNull(config, "the settings file is given with --config: " + container.getArgs());
        ConfigMap configMap = only(ConfigMap.class);
        KeyToPath item = mountedItem(config, "configMap");
        assertTrue(configMap.getData().containsKey(item.getKey()), "the ConfigMap has " + item.getKey());
        assertFalse(run.hasMatchedOption("--apply-topics"), "topics are created once by an administrator, not by pods");
    }

    @Test
    void secretReferencesResolveAndThePlaceholderTokenIsRefused() throws IOException {
        Secret secret = only(Secret.class);
        Map<String, String> values = secretValues(secret);
        for (EnvVar variable : container.getEnv()) {
            if (variable.getValueFrom() != null && variable.getValueFrom().getSecretKeyRef() != null) {
                assertEquals(secret.getMetadata().getName(), variable.getValueFrom().getSecretKeyRef().getName(),
                        variable.getName() + " reads the Secret");
                assertTrue(values.containsKey(variable.getValueFrom().getSecretKeyRef().getKey()),
                        variable.getName() + ": the Secret has " + variable.getValueFrom().getSecretKeyRef().getKey());
            }
        }
        Path tokensFile = Path.of(String.valueOf(settings().values().get(EnforcerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG)));
        KeyToPath item = mountedItem(tokensFile, "secret");
        assertTrue(values.containsKey(item.getKey()), "the Secret has " + item.getKey());
        Path placeholder = Files.createTempFile("http-tokens", "");
        try {
            Files.writeString(placeholder, values.get(item.getKey()));
            assertThrows(ConfigException.class,
                    () -> AccessTokens.load(EnforcerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, placeholder),
                    "the placeholder is no valid token, so the enforcer will not start until it is replaced");
        } finally {
            Files.delete(placeholder);
        }
    }

    @Test
    void eachPodAdvertisesItsNameUnderTheHeadlessService() {
        Service headless = headlessService();
        assertEquals(headless.getMetadata().getName(), statefulSet.getSpec().getServiceName(),
                "the headless Service is the StatefulSet's serviceName, which gives each pod its DNS name");
        Map<String, String> fields = new LinkedHashMap<>();
        for (EnvVar variable : container.getEnv()) {
            if (variable.getValueFrom() != null && variable.getValueFrom().getFieldRef() != null) {
                fields.put(variable.getName(), variable.getValueFrom().getFieldRef().getFieldPath());
            }
        }
        String advertised = rawValue(Settings.ENV_PREFIX + "QUOTA_HTTP_ADVERTISED_HOST");
        Matcher m = Pattern.compile("\\$\\((\\w+)\\)\\.([a-z0-9-]+)\\.\\$\\((\\w+)\\)\\.svc").matcher(advertised);
        assertTrue(m.matches(), EnforcerConfig.HTTP_ADVERTISED_HOST_CONFIG + " is <pod>.<service>.<namespace>.svc: "
                + advertised);
        assertEquals("metadata.name", fields.get(m.group(1)), m.group(1) + " is the pod's name");
        assertEquals(headless.getMetadata().getName(), m.group(2), "the name is under the headless Service");
        assertEquals("metadata.namespace", fields.get(m.group(3)), m.group(3) + " is the pod's namespace");
        List<String> order = container.getEnv().stream().map(EnvVar::getName).toList();
        String variable = Settings.ENV_PREFIX + "QUOTA_HTTP_ADVERTISED_HOST";
        assertTrue(order.indexOf(m.group(1)) < order.indexOf(variable) && order.indexOf(m.group(3)) < order.indexOf(variable),
                "Kubernetes expands $(NAME) only for variables defined before: " + order);
        assertTrue(Boolean.TRUE.equals(headless.getSpec().getPublishNotReadyAddresses()),
                "peers resolve a pod while it is not ready (rebalancing, restoring)");
        assertEquals("false", String.valueOf(podSpec().getEnableServiceLinks()),
                "no service links: Kubernetes would add QUOTA_ENFORCER_* variables for the Services, read as settings");
    }

    @Test
    void stateDirectoryIsADirectoryTheEnforcerCreatesOnTheVolumeClaim() {
        Path stateDir = Path.of(String.valueOf(settings().values().get(StreamsConfig.STATE_DIR_CONFIG)));
        assertEquals(1, statefulSet.getSpec().getVolumeClaimTemplates().size(), "one volume claim, for the state");
        String claim = statefulSet.getSpec().getVolumeClaimTemplates().get(0).getMetadata().getName();
        // The mount nearest to state.dir is the one its files land on.
        VolumeMount holder = container.getVolumeMounts().stream().filter(m -> stateDir.startsWith(Path.of(m.getMountPath())))
                .max(Comparator.comparingInt(m -> Path.of(m.getMountPath()).getNameCount()))
                .orElseThrow(() -> new AssertionError("state.dir " + stateDir + " is on a mounted volume"));
        assertEquals(claim, holder.getName(), "state.dir " + stateDir + " is on the claim " + claim);
        // Kafka Streams sets state.dir's permissions at start: only its owner may, and the volume's root is root's.
        assertEquals(Path.of(holder.getMountPath()), stateDir.getParent(),
                "state.dir is a directory directly under the claim's mount, which the enforcer creates");
        assertTrue(podSpec().getVolumes().stream().noneMatch(v -> v.getName().equals(claim)),
                "no pod volume shadows the claim " + claim);
        assertEquals("ReadWriteOnce", statefulSet.getSpec().getVolumeClaimTemplates().get(0).getSpec()
                .getAccessModes().get(0), "each pod's state is its own");
    }

    @Test
    void servicesAndTheBudgetSelectTheStatefulSetsPodsOnTheHttpPort() {
        Map<String, String> labels = statefulSet.getSpec().getTemplate().getMetadata().getLabels();
        assertSelects("the StatefulSet", statefulSet.getSpec().getSelector().getMatchLabels(), labels);
        Service headless = headlessService();
        List<Service> services = all(Service.class);
        assertEquals(2, services.size(), "a headless Service for the peers and one for operators");
        for (Service service : services) {
            assertSelects("Service " + service.getMetadata().getName(), service.getSpec().getSelector(), labels);
            for (ServicePort port : service.getSpec().getPorts()) {
                assertEquals(httpPort(), containerPort(port.getTargetPort()),
                        "Service " + service.getMetadata().getName() + " leads to " + EnforcerConfig.HTTP_PORT_CONFIG);
                assertEquals(httpPort(), port.getPort(), "Service " + service.getMetadata().getName()
                        + " answers on the port application.server names, as the pods do");
            }
        }
        assertEquals("None", headless.getSpec().getClusterIP());
        PodDisruptionBudget budget = only(PodDisruptionBudget.class);
        assertEquals(new IntOrString(1), budget.getSpec().getMaxUnavailable(), "one instance at a time is disrupted");
        assertSelects("the PodDisruptionBudget", budget.getSpec().getSelector().getMatchLabels(), labels);
        podSpec().getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution().forEach(term ->
                assertSelects("the anti-affinity", term.getPodAffinityTerm().getLabelSelector().getMatchLabels(), labels));
    }

    @Test
    void podsRunAsTheImagesUserWithAMemoryLimitThatHoldsTheBudget() {
        String[] user = dockerfile.runtime().last("USER").split(":");
        var security = podSpec().getSecurityContext();
        assertEquals(Boolean.TRUE, security.getRunAsNonRoot());
        assertEquals(Long.parseLong(user[0]), security.getRunAsUser(), "runAsUser is the image's USER");
        assertEquals(Long.parseLong(user[1]), security.getRunAsGroup(), "runAsGroup is the image's group");
        assertEquals(Long.parseLong(user[1]), security.getFsGroup(), "fsGroup gives the state volume to that group");
        Map<String, String> env = effectiveEnvironment();
        Matcher heap = HEAP.matcher(String.valueOf(env.get("JAVA_TOOL_OPTIONS")));
        assertTrue(heap.find(), "the heap is set: " + env.get("JAVA_TOOL_OPTIONS"));
        long heapBytes = Long.parseLong(heap.group(1)) << switch (heap.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        long rocksDb = settingsConfig().rocksDbMemoryBytes();
        Quantity limit = container.getResources().getLimits().get("memory");
        assertNotNull(limit, "the container has a memory limit");
        BigDecimal needed = BigDecimal.valueOf(heapBytes + rocksDb + RSS_OVERHEAD_BYTES);
        assertTrue(Quantity.getAmountInBytes(limit).compareTo(needed) >= 0, "the memory limit " + limit
                + " holds -Xmx, " + EnforcerConfig.ROCKSDB_MEMORY_BYTES_CONFIG + " and 200 MiB: " + needed + " bytes");
        assertEquals(limit, container.getResources().getRequests().get("memory"),
                "memory is requested as limited: the scheduler reserves what the pod may use");
        if (Boolean.TRUE.equals(container.getSecurityContext().getReadOnlyRootFilesystem())) {
            String tmp = container.getVolumeMounts().stream().filter(m -> m.getMountPath().equals("/tmp"))
                    .map(VolumeMount::getName).findFirst().orElseThrow(() ->
                            new AssertionError("with a read-only root, /tmp (RocksDB's native library) is a volume"));
            assertTrue(podSpec().getVolumes().stream().anyMatch(v -> v.getName().equals(tmp) && v.getEmptyDir() != null),
                    "/tmp is an emptyDir");
        }
    }

    @Test
    void shutdownGraceAndReplicaCountFitTheApplication() throws IOException {
        JsonNode compose = new ObjectMapper(new YAMLFactory()).readTree(RepositoryFiles.path("docker-compose.yml").toFile());
        Duration composeGrace = Duration.parse("PT" + compose.path("services").path("enforcer")
                .path("stop_grace_period").asText().toUpperCase(Locale.ROOT));
        assertTrue(podSpec().getTerminationGracePeriodSeconds() >= composeGrace.toSeconds(),
                "a pod has at least the compose stack's time to commit and leave the group on SIGTERM ("
                        + composeGrace.toSeconds() + " s): " + podSpec().getTerminationGracePeriodSeconds());
        String requests = Topics.withPrefix(settingsConfig().topicPrefix()).requests().name();
        int partitions = TopicDefinitions.bundled().topic(requests).partitions();
        assertTrue(statefulSet.getSpec().getReplicas() <= partitions, statefulSet.getSpec().getReplicas()
                + " replicas: at most one per partition of " + requests + " (" + partitions + ") does work");
    }

    // ---- reading the manifests

    private static <T extends HasMetadata> List<T> all(Class<T> type) {
        return manifests.values().stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T only(Class<T> type) {
        List<T> found = all(type);
        assertEquals(1, found.size(), "one " + type.getSimpleName() + " in " + DIR);
        return found.get(0);
    }

    private static PodSpec podSpec() {
        return statefulSet.getSpec().getTemplate().getSpec();
    }

    private static Service headlessService() {
        return all(Service.class).stream().filter(s -> "None".equals(s.getSpec().getClusterIP())).findFirst()
                .orElseThrow(() -> new AssertionError("a headless Service (clusterIP: None)"));
    }

    private static void assertSelects(String what, Map<String, String> selector, Map<String, String> labels) {
        assertFalse(selector == null || selector.isEmpty(), what + " selects by labels");
        selector.forEach((key, value) -> assertEquals(value, labels.get(key),
                what + " selects the StatefulSet's pods: label " + key));
    }

    private static void assertProbe(String name, Probe probe, String path) {
        assertNotNull(probe, "a " + name + " probe");
        assertNotNull(probe.getHttpGet(), "the " + name + " probe is an HTTP GET");
        assertEquals(path, probe.getHttpGet().getPath(), "the " + name + " probe's path");
        assertEquals(httpPort(), containerPort(probe.getHttpGet().getPort()), "the " + name + " probe's port");
    }

    /** A port by number or by the name of one of the container's ports. */
    private static int containerPort(IntOrString port) {
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return container.getPorts().stream().filter(p -> port.getStrVal().equals(p.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("the container has a port named " + port.getStrVal()))
                .getContainerPort();
    }

    /** The ConfigMap's or Secret's item mounted at {@code file}: a volume of that kind mounted at its directory. */
    private static KeyToPath mountedItem(Path file, String kind) {
        VolumeMount mount = container.getVolumeMounts().stream()
                .filter(m -> file.startsWith(Path.of(m.getMountPath()))).findFirst()
                .orElseThrow(() -> new AssertionError(file + " is on a mounted volume"));
        Volume volume = podSpec().getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("volume " + mount.getName() + " is defined"));
        List<KeyToPath> items;
        if (kind.equals("configMap")) {
            assertNotNull(volume.getConfigMap(), file + " is on a ConfigMap volume");
            assertEquals(only(ConfigMap.class).getMetadata().getName(), volume.getConfigMap().getName());
            items = volume.getConfigMap().getItems();
        } else {
            assertNotNull(volume.getSecret(), file + " is on a Secret volume");
            assertEquals(only(Secret.class).getMetadata().getName(), volume.getSecret().getSecretName());
            items = volume.getSecret().getItems();
        }
        String relative = Path.of(mount.getMountPath()).relativize(file).toString();
        return items.stream().filter(i -> i.getPath().equals(relative)).findFirst()
                .orElseThrow(() -> new AssertionError(file + " is an item of volume " + volume.getName()));
    }

    private static Map<String, String> secretValues(Secret secret) {
        Map<String, String> values = new LinkedHashMap<>();
        if (secret.getData() != null) {
            secret.getData().forEach((k, v) -> values.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
        }
        if (secret.getStringData() != null) {
            values.putAll(secret.getStringData());
        }
        return values;
    }

    /** The ConfigMap's settings file alone, read by the enforcer's own loader. */
    private static Map<String, String> configFile() {
        Map<String, String> settings = new LinkedHashMap<>();
        withConfigFile(file -> Settings.load(file, Map.of(), Map.of())).values()
                .forEach((k, v) -> settings.put(k, String.valueOf(v)));
        return settings;
    }

    /** Reads the ConfigMap's file, written where --config names it (under a temporary directory), with {@code load}. */
    private static Settings withConfigFile(Function<Path, Settings> load) {
        Path config = new CommandLine(new QuotaEnforcerCommand()).parseArgs(container.getArgs().toArray(String[]::new))
                .subcommand().matchedOptionValue("--config", null);
        String text = only(ConfigMap.class).getData().get(mountedItem(config, "configMap").getKey());
        try {
            Path dir = Files.createTempDirectory("deploy-config");
            Path file = dir.resolve(config.getFileName());
            try {
                Files.writeString(file, text);
                return load.apply(file);
            } finally {
                Files.delete(file);
                Files.delete(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String rawValue(String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("the container sets " + name)).getValue();
    }

    /**
     * The enforcer's environment in a pod: the image's ENV under the container's, with secret values
     * from the Secret, field references as Kubernetes fills them for pod 0, and $(NAME) expanded.
     */
    private static Map<String, String> effectiveEnvironment() {
        Map<String, String> env = new LinkedHashMap<>(dockerfile.env());
        Map<String, String> secret = secretValues(only(Secret.class));
        Map<String, String> fields = Map.of("metadata.name", statefulSet.getMetadata().getName() + "-0",
                "metadata.namespace", "default");
        Map<String, String> defined = new LinkedHashMap<>();
        for (EnvVar variable : container.getEnv()) {
            String value;
            if (variable.getValueFrom() == null) {
                Matcher m = REFERENCE.matcher(variable.getValue());
                value = m.replaceAll(r -> Matcher.quoteReplacement(defined.getOrDefault(r.group(1), r.group())));
            } else if (variable.getValueFrom().getSecretKeyRef() != null) {
                value = secret.get(variable.getValueFrom().getSecretKeyRef().getKey());
            } else {
                value = fields.get(variable.getValueFrom().getFieldRef().getFieldPath());
            }
            assertNotNull(value, variable.getName() + " has a value");
            assertFalse(REFERENCE.matcher(value).find(), variable.getName() + " refers only to variables defined before it");
            defined.put(variable.getName(), value);
        }
        env.putAll(defined);
        return env;
    }

    /** Every setting a pod's enforcer starts with: the ConfigMap's file under the environment, as Settings merges them. */
    private static Settings settings() {
        Map<String, String> env = effectiveEnvironment();
        return withConfigFile(file -> Settings.load(file, env, Map.of()));
    }

    private static EnforcerConfig settingsConfig() {
        return settings().validate();
    }

    private static int httpPort() {
        return settingsConfig().httpPort();
    }

    /** Collects, below {@code path}, every field the model kept as an additional property: one it has no place for. */
    private static void unknownFields(Object value, String path, List<String> unknown) {
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                unknownFields(item, path + "[" + i++ + "]", unknown);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> unknownFields(v, path + "." + k, unknown));
            return;
        }
        if (value == null || !value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                continue;
            }
            Object field;
            try {
                field = getter.invoke(value);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new AssertionError(path + ": cannot read " + getter.getName(), e);
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    unknown.add(path + ": " + extra.keySet());
                }
            } else {
                unknownFields(field, path + "." + getter.getName().substring(3), unknown);
            }
        }
    }
}

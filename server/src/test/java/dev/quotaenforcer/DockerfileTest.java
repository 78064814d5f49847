package dev.quotaenforcer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.DockerfileInstructions.Instruction;
import dev.quotaenforcer.DockerfileInstructions.Stage;
import dev.quotaenforcer.cli.QuotaEnforcerCommand;
import dev.quotaenforcer.config.EnforcerConfig;
import dev.quotaenforcer.config.Settings;
import dev.quotaenforcer.http.OperatorServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** The Dockerfile's image agrees with the code: pinned bases, the jar, its user and state volume, settings, port, health check, JVM flags. */
class DockerfileTest {

    private static final String EXIT_ON_OOM = "-XX:+ExitOnOutOfMemoryError";
    private static final Pattern PORT_VARIABLE = Pattern.compile("\\$\\{(QUOTA_ENFORCER_[A-Z0-9_]+):-([^}]*)}");

    private static DockerfileInstructions dockerfile;

    @BeforeAll
    static void readDockerfile() {
        dockerfile = DockerfileInstructions.read();
        assertTrue(dockerfile.stages().size() >= 2, "a build stage and a runtime stage");
    }

    @Test
    void buildsTheJarWithMavenOnJdk17AndRunsItOnAPinnedTemurinJre() throws IOException {
        Stage build = dockerfile.stages().get(0);
        assertTrue(build.image().matches("maven:\\d+\\.\\d+\\.\\d+-eclipse-temurin-17"),
                "the build stage is a pinned Maven on Temurin JDK 17: " + build.image());
        assertTrue(build.all("RUN").stream().anyMatch(run -> run.contains("mvn -B -DskipTests -pl server -am package")),
                "the build stage builds the server module and what it needs: " + build.all("RUN"));
        Stage runtime = dockerfile.runtime();
        assertTrue(runtime.image().matches("eclipse-temurin:17\\.\\d+\\.\\d+_\\d+-jre"),
                "the runtime is a Temurin 17 JRE pinned to its release: " + runtime.image());
        String jar = "server/target/" + shadedJarName();
        String copied = runtime.all("COPY").stream().filter(c -> c.startsWith("--from=" + build.name() + " "))
                .findFirst().orElseThrow(() -> new AssertionError("the runtime stage copies from " + build.name()));
        String[] parts = copied.split("\\s+");
        assertTrue(parts[1].endsWith("/" + jar), "it copies the shaded jar " + jar + ": " + copied);
        String entrypointJar = dockerfile.entrypoint().get(dockerfile.entrypoint().indexOf("-jar") + 1);
        assertEquals(parts[2], entrypointJar, "the entrypoint runs the jar copied in");
    }

    @Test
    void theBuildContextHoldsWhatTheBuildCopiesAndNoLocalBuildOutput() throws IOException {
        List<String> ignore = Files.readAllLines(RepositoryFiles.path(".dockerignore")).stream().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
        for (String copy : dockerfile.stages().get(0).all("COPY")) {
            String[] parts = copy.split("\\s+");
            for (String source : List.of(parts).subList(0, parts.length - 1)) {
                assertTrue(Files.exists(RepositoryFiles.path(source)), "COPY " + source + " exists in the repository");
                assertFalse(ignored(ignore, source), "COPY " + source + " is not left out by .dockerignore");
            }
        }
        assertTrue(ignored(ignore, "target"), "target/ stays out: the image builds its own jar");
        for (String module : List.of("core", "client", "server", "bench")) {
            assertTrue(ignored(ignore, module + "/target"), module + "/target/ stays out");
        }
        assertTrue(ignored(ignore, "bench/src"), "the benchmarks stay out: the image has no use for them");
        assertTrue(ignored(ignore, ".git"), ".git stays out");
    }

    @Test
    void runsAsAFixedNonRootUserThatTheImageCreates() {
        Matcher user = Pattern.compile("(\\d+):(\\d+)").matcher(dockerfile.runtime().last("USER"));
        assertTrue(user.matches(), "USER is a numeric uid:gid, so Kubernetes' runAsNonRoot can check it: "
                + dockerfile.runtime().last("USER"));
        assertNotEquals("0", user.group(1), "the user is not root");
        assertTrue(dockerfile.runtime().all("RUN").stream().anyMatch(run -> run.contains("useradd")
                        && run.contains("--uid " + user.group(1)) && run.contains("--gid " + user.group(2))),
                "the image creates user " + user.group(1) + " in group " + user.group(2));
    }

    @Test
    void stateDirectoryIsAVolumeOwnedByTheUserBeforeItIsDeclared() {
        String stateDir = (String) imageSettings().values().get(StreamsConfig.STATE_DIR_CONFIG);
        assertNotNull(stateDir, "the image sets state.dir");
        Instruction volume = dockerfile.runtime().instructions().stream()
                .filter(i -> i.keyword().equals("VOLUME") && List.of(i.arguments().split("\\s+")).contains(stateDir))
                .findFirst().orElseThrow(() -> new AssertionError("state.dir " + stateDir + " is a VOLUME"));
        String owner = dockerfile.runtime().last("USER");
        Instruction chown = dockerfile.runtime().instructions().stream()
                .filter(i -> i.keyword().equals("RUN") && i.arguments().contains("chown " + owner + " " + stateDir))
                .findFirst().orElseThrow(() -> new AssertionError("a RUN gives " + stateDir + " to " + owner));
        // Docker discards what a build step changes in a volume after the VOLUME line.
        assertTrue(dockerfile.runtime().indexOf(chown) < dockerfile.runtime().indexOf(volume),
                "the directory is given to the user before it is declared a volume");
    }

    @Test
    void everyQuotaEnforcerVariableIsARealSettingWithAValidValue() {
        List<String> variables = new ArrayList<>(dockerfile.env().keySet());
        Matcher referenced = PORT_VARIABLE.matcher(String.join(" ", dockerfile.healthCheck()));
        while (referenced.find()) {
            variables.add(referenced.group(1));
        }
        List<String> settings = variables.stream().map(KnownSettings::fromEnvironment).filter(s -> s != null).toList();
        assertFalse(settings.isEmpty(), "the image sets settings by environment: " + variables);
        assertTrue(KnownSettings.names().containsAll(settings),
                "every QUOTA_ENFORCER_* variable of the image names a setting of the enforcer, Kafka Streams or a "
                        + "client: " + settings);
        imageSettings().with(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka:9092", "test").validate();
    }

    @Test
    void theJvmAlwaysExitsOnOutOfMemoryErrorAndHasAnExplicitHeap() {
        List<String> entrypoint = dockerfile.entrypoint();
        assertEquals("java", entrypoint.get(0), "java itself is PID 1 and gets SIGTERM: " + entrypoint);
        int jar = entrypoint.indexOf("-jar");
        assertTrue(jar > 0 && entrypoint.subList(0, jar).contains(EXIT_ON_OOM),
                "the entrypoint, which arguments cannot replace, passes " + EXIT_ON_OOM + " to the JVM: " + entrypoint);
        assertTrue(String.valueOf(dockerfile.env().get("JAVA_TOOL_OPTIONS")).matches("(.*\\s)?-Xmx\\d+[kmgKMG]?(\\s.*)?"),
                "the heap is set, in JAVA_TOOL_OPTIONS: " + dockerfile.env().get("JAVA_TOOL_OPTIONS"));
        assertTrue(dockerfile.env().containsKey(Settings.ENV_PREFIX + "QUOTA_ROCKSDB_MEMORY_BYTES"),
                "RocksDB's memory is set beside the heap");
        List<String> arguments = new ArrayList<>(entrypoint.subList(jar + 2, entrypoint.size()));
        arguments.addAll(dockerfile.cmd());
        ParseResult parsed = new CommandLine(new QuotaEnforcerCommand()).parseArgs(arguments.toArray(String[]::new));
        assertEquals("run", parsed.subcommand().commandSpec().name(), "by default the image runs the enforcer");
    }

    @Test
    void theJvmAsksForItsHeapInTransparentHugePagesAsTheBenchmarksRunIt() {
        List<String> entrypoint = dockerfile.entrypoint();
        assertTrue(entrypoint.subList(0, entrypoint.indexOf("-jar")).contains("-XX:+UseTransparentHugePages"),
                "the throughput and state figures of docs/tuning.md were measured with it: " + entrypoint);
    }

    @Test
    void exposesTheHttpPortTheConfigurationGives() {
        assertEquals(List.of(String.valueOf(httpPort())), dockerfile.runtime().all("EXPOSE"),
                "EXPOSE is " + EnforcerConfig.HTTP_PORT_CONFIG + " as the image configures it");
    }

    @Test
    void healthCheckAsksForReadinessOnTheConfiguredPort() {
        List<String> check = dockerfile.healthCheck();
        assertEquals(List.of("bash", "-c"), check.subList(0, 2), "the check is a bash script (the JRE image has bash)");
        String script = check.get(2);
        assertTrue(script.contains("GET " + OperatorServer.READY_PATH + " "), "it asks " + OperatorServer.READY_PATH
                + ": " + script);
        Matcher port = PORT_VARIABLE.matcher(script);
        assertTrue(port.find(), "it reads the port from the environment: " + script);
        assertEquals(EnforcerConfig.HTTP_PORT_CONFIG, KnownSettings.fromEnvironment(port.group(1)));
        assertEquals(String.valueOf(httpPort()), port.group(2), "its default is the configured port");
    }

    /**
     * Runs the check's script against the real operator API before Kafka Streams exists: asking the
     * liveness route (200 then) it passes, so its request and its reading of the status line work;
     * asking readiness (503 then) it fails.
     */
    @Test
    void healthCheckPassesOnlyWhenTheServerAnswers200() throws Exception {
        List<String> check = dockerfile.healthCheck();
        Matcher port = PORT_VARIABLE.matcher(check.get(2));
        assertTrue(port.find(), "the check reads its port from the environment");
        try (OperatorServer server = OperatorServer.start("127.0.0.1", 0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                Clock.systemUTC(), null, null, false)) {
            Map<String, String> env = Map.of(port.group(1), String.valueOf(server.port()));
            List<String> live = new ArrayList<>(check);
            live.set(2, check.get(2).replace("GET " + OperatorServer.READY_PATH + " ", "GET " + OperatorServer.LIVE_PATH + " "));
            assertEquals(0, run(live, env), "healthy when the route answers 200");
            assertNotEquals(0, run(check, env), "unhealthy while not ready (503)");
        }
        assertNotEquals(0, run(check, Map.of(port.group(1), "1")), "unhealthy when nothing listens");
    }

    // ---- helpers

    /** The settings the image's environment gives, read as the enforcer reads them. */
    private static Settings imageSettings() {
        return Settings.load(null, dockerfile.env(), Map.of());
    }

    private static int httpPort() {
        Object port = imageSettings().values().get(EnforcerConfig.HTTP_PORT_CONFIG);
        return port != null ? Integer.parseInt(port.toString())
                : (Integer) EnforcerConfig.definition().defaultValues().get(EnforcerConfig.HTTP_PORT_CONFIG);
    }

    /** The shaded jar's name in server/pom.xml: the jar `mvn package` leaves in server/target/. */
    private static String shadedJarName() throws IOException {
        Matcher m = Pattern.compile("<outputFile>\\$\\{project.build.directory}/([^<]+)</outputFile>")
                .matcher(Files.readString(RepositoryFiles.path("server", "pom.xml")));
        assertTrue(m.find(), "server/pom.xml names the shaded jar");
        return m.group(1);
    }

    /**
     * .dockerignore's verdict on a path: the last pattern that matches it or a directory above it wins; '!'
     * re-includes.
     */
    private static boolean ignored(List<String> patterns, String path) {
        Path name = Path.of(path.replaceAll("^\\./", "").replaceAll("/$", ""));
        boolean ignored = false;
        for (String pattern : patterns) {
            boolean include = pattern.startsWith("!");
            String glob = (include ? pattern.substring(1) : pattern).replaceAll("^/", "").replaceAll("/$", "");
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
            for (int depth = 1; depth <= name.getNameCount(); depth++) {
                if (matcher.matches(name.subpath(0, depth))) {
                    ignored = !include;
                    break;
                }
            }
        }
        return ignored;
    }

    private static int run(List<String> command, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        // Only PATH (to find bash) and the port: the check must not depend on the caller's environment.
        builder.environment().clear();
        builder.environment().put("PATH", System.getenv("PATH"));
        builder.environment().putAll(env);
        Process process = builder.start();
        assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the health check finishes: " + command);
        return process.exitValue();
    }
}

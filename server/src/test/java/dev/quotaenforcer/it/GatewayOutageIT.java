package dev.quotaenforcer.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quotaenforcer.client.AsyncQuotaClient;
import dev.quotaenforcer.client.QuotaClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case 6 of the fault suite: a gateway's clients while the enforcer, then the broker, is gone. Every
 * check is answered by the failure policy within its timeout; once the enforcer or broker is back,
 * every request that reached the requests topic is decided exactly once ({@link FaultVerifier}), and
 * every event the asynchronous client could not publish is counted by {@link AsyncQuotaClient#notRecorded}.
 */
class GatewayOutageIT {

    private static final Duration TIMEOUT = Duration.ofMillis(500);
    /** A timer thread's usual wake-up after its deadline. */
    private static final Duration TIMER_WAKE_UP = Duration.ofMillis(100);
    /**
     * What a check may take beyond its timeout: the JDK's timer thread that completes it (one per JVM) was
     * seen up to 550 ms late on the shared 2-core test machine, while the test's own ticker ran on time.
     */
    private static final Duration GRACE = Duration.ofSeconds(1);
    private static final int CHECKS_PER_SECOND = 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @ExtendWith(KafkaBroker.class)
    void duringASixtySecondEnforcerOutageEveryCheckIsAnsweredByThePolicyInTimeAndAfterTheRestartEachOfItsRequestsIsDecidedOnce(
            TestCluster cluster, @TempDir Path work) throws Exception {
        String what = "enforcer outage of 60 s";
        try (FaultScenario scenario = FaultScenario.prepare(cluster, work);
             QuotaClient client = client(cluster, QuotaClient.FailurePolicy.FAIL_CLOSED)) {
            Path dir = scenario.freshStateDir("a");
            EnforcerJvm enforcer = scenario.start("a", dir);
            assertTrue(client.awaitReady(Duration.ofSeconds(60)), "the client reached the cluster");
            List<GatewayTraffic.Check> checks;
            String timing;
            long killed;
            long restarting;
            long backNanos;
            try (GatewayTraffic traffic = GatewayTraffic.start(client, null, List.copyOf(scenario.keys().keySet()),
                    CHECKS_PER_SECOND)) {
                traffic.awaitDecidedByTheEnforcer(Duration.ofSeconds(60));
                traffic.ticksFor(CHECKS_PER_SECOND * 5);
                killed = System.nanoTime();
                enforcer.kill();
                traffic.ticksFor(CHECKS_PER_SECOND * 60);
                restarting = System.nanoTime();
                scenario.start("a", dir);
                traffic.awaitDecidedByTheEnforcer(Duration.ofSeconds(60));
                backNanos = System.nanoTime() - restarting;
                traffic.ticksFor(CHECKS_PER_SECOND * 2);
                checks = traffic.stop(TIMEOUT.plusSeconds(30));
                timing = timing(checks, killed);
            }
            List<GatewayTraffic.Check> outage = asked(checks, killed, restarting);
            for (GatewayTraffic.Check check : outage) {
                assertTrue(check.answered().decision().byFailurePolicy() && !check.answered().decision().allowed(),
                        check.requestId() + " asked during the outage is refused by the failure policy: " + check.answered());
            }

            scenario.finish(what);
            Set<String> published = requestIds(cluster);
            long outagePublished = outage.stream().filter(c -> published.contains(c.requestId())).count();
            assertEquals(outage.size(), outagePublished, "every request of the outage reached the requests topic");
            FaultScenario.report(what, checks.size() + " checks at " + CHECKS_PER_SECOND + "/s, " + outage.size()
                    + " during the outage, all answered by the failure policy (fail closed), " + atOnce(outage)
                    + " of them at once; " + timing + "; all " + outage.size() + " outage requests on the requests topic"
                    + " and decided exactly once as the model decides; restart to the first check the enforcer answered: "
                    + Duration.ofNanos(backNanos).toMillis() + " ms; " + client.mismatchedReplies()
                    + " decisions reached the gateway after its policy had answered (ignored, counted)");
        }
    }

    @Test
    void duringAThirtySecondBrokerOutageEveryCheckIsAnsweredByThePolicyInTimeAndWhatWasPublishedIsDecidedOnce(
            @TempDir Path work) throws Exception {
        String what = "broker outage of 30 s";
        try (BrokerCluster broker = BrokerCluster.start(1, work.resolve("broker"))) {
            TestCluster cluster = new TestCluster(broker.bootstrapServers(), "gatewayBrokerOutage");
            // This gateway would rather drop an event than publish it long after the fact: a delivery timeout
            // shorter than the outage, so some events of the outage are not published and must be counted.
            Map<String, Object> dropAfter = Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
            try (FaultScenario scenario = FaultScenario.prepare(cluster, work);
                 QuotaClient client = client(cluster, QuotaClient.FailurePolicy.FAIL_OPEN);
                 AsyncQuotaClient async = new AsyncQuotaClient(settings(cluster, dropAfter),
                         cluster.topics().requests().name(), cluster.topics().blocks().name(), Clock.systemUTC())) {
                EnforcerJvm enforcer = scenario.start("a", scenario.freshStateDir("a"));
                assertTrue(client.awaitReady(Duration.ofSeconds(60)), "the client reached the cluster");
                assertTrue(async.awaitReady(Duration.ofSeconds(60)), "the async client reached the cluster");
                List<GatewayTraffic.Check> checks;
                String timing;
                List<String> recorded;
                long killed;
                long restarting;
                long servingNanos;
                long backNanos;
                try (GatewayTraffic traffic = GatewayTraffic.start(client, async, List.copyOf(scenario.keys().keySet()),
                        CHECKS_PER_SECOND)) {
                    traffic.awaitDecidedByTheEnforcer(Duration.ofSeconds(60));
                    traffic.ticksFor(CHECKS_PER_SECOND * 5);
                    killed = System.nanoTime();
                    broker.kill(1);
                    traffic.ticksFor(CHECKS_PER_SECOND * 30);
                    restarting = System.nanoTime();
                    broker.restart(1);
                    servingNanos = System.nanoTime() - restarting;
                    traffic.awaitDecidedByTheEnforcer(Duration.ofSeconds(120));
                    backNanos = System.nanoTime() - restarting;
                    traffic.ticksFor(CHECKS_PER_SECOND * 2);
                    checks = traffic.stop(TIMEOUT.plusSeconds(30));
                    recorded = traffic.recorded();
                    timing = timing(checks, killed);
                }
                // Closing flushes: every event recorded has been published or has failed and been counted.
                async.close();
                assertTrue(enforcer.alive() && enforcer.ready(), "the enforcer rode out the broker outage; output:\n"
                        + enforcer.tail());

                List<GatewayTraffic.Check> outage = asked(checks, killed, restarting);
                for (GatewayTraffic.Check check : outage) {
                    assertTrue(check.answered().decision().byFailurePolicy() && check.answered().decision().allowed(),
                            check.requestId() + " asked during the outage is let through by the failure policy: "
                                    + check.answered());
                }

                scenario.finish(what);
                Set<String> published = requestIds(cluster);
                long checksPublished = outage.stream().filter(c -> published.contains(c.requestId())).count();
                long recordsPublished = recorded.stream().filter(published::contains).count();
                long notRecorded = async.notRecorded();
                // An event is published or counted, or both: a send that timed out after the broker wrote it.
                assertTrue(recordsPublished + notRecorded >= recorded.size(), recorded.size() + " events recorded, "
                        + recordsPublished + " published, " + notRecorded + " counted as not recorded: some went missing");
                FaultScenario.report(what, checks.size() + " checks at " + CHECKS_PER_SECOND + "/s, " + outage.size()
                        + " during the outage, all answered by the failure policy (fail open), " + atOnce(outage)
                        + " of them at once (the send refused); " + timing + "; " + checksPublished + " of the outage's "
                        + outage.size() + " checks reached the requests topic all the same (the client does not say which)"
                        + " and were decided once; async client: " + recorded.size() + " events, " + recordsPublished
                        + " published and decided once, " + notRecorded + " counted not recorded ("
                        + (recordsPublished + notRecorded - recorded.size()) + " of those published all the same); the"
                        + " restarted broker served " + Duration.ofNanos(servingNanos).toMillis() + " ms after its restart"
                        + " began, the enforcer answered a check after " + Duration.ofNanos(backNanos).toMillis() + " ms");
            }
        }
    }

    private static QuotaClient client(TestCluster cluster, QuotaClient.FailurePolicy policy) {
        return new QuotaClient(settings(cluster, Map.of()), QuotaClient.Options.builder()
                .requestsTopic(cluster.topics().requests().name()).replyTopic(cluster.topics().replies().name())
                .replyPartition(0).timeout(TIMEOUT).failurePolicy(policy).build(), Clock.systemUTC());
    }

    private static Map<String, Object> settings(TestCluster cluster, Map<String, Object> overrides) {
        Map<String, Object> settings = new HashMap<>(overrides);
        settings.put("bootstrap.servers", cluster.bootstrapServers());
        return settings;
    }

    /** The checks asked from {@code from} (inclusive) to {@code to}. */
    private static List<GatewayTraffic.Check> asked(List<GatewayTraffic.Check> checks, long from, long to) {
        return checks.stream().filter(c -> c.askedNanos() >= from && c.askedNanos() < to).toList();
    }

    /**
     * Fails unless every check was answered within its timeout and the grace; the figures: the slowest,
     * the 99th percentile and how many came later than the timeout and a timer's usual wake-up.
     */
    private static String timing(List<GatewayTraffic.Check> checks, long faultNanos) {
        List<Duration> took = checks.stream().map(c -> c.answered().took()).sorted().toList();
        List<String> late = checks.stream().filter(c -> c.answered().took().compareTo(TIMEOUT.plus(GRACE)) > 0)
                .map(c -> c.requestId() + " asked " + Duration.ofNanos(c.askedNanos() - faultNanos).toMillis()
                        + " ms after the fault: answered in " + c.answered().took().toMillis() + " ms (check() returned in "
                        + c.call().toMillis() + " ms)").toList();
        assertEquals(List.of(), late, "checks answered later than the " + TIMEOUT.toMillis() + " ms timeout and a grace of "
                + GRACE.toMillis() + " ms");
        return "slowest check " + took.get(took.size() - 1).toMillis() + " ms of a " + TIMEOUT.toMillis() + " ms timeout, 99th"
                + " percentile " + took.get(took.size() * 99 / 100).toMillis() + " ms, " + took.stream()
                .filter(t -> t.compareTo(TIMEOUT.plus(TIMER_WAKE_UP)) > 0).count() + " over " + TIMEOUT.plus(TIMER_WAKE_UP)
                .toMillis() + " ms";
    }

    /** How many were answered before their timeout: by the policy at once, their send refused. */
    private static long atOnce(List<GatewayTraffic.Check> checks) {
        return checks.stream().filter(c -> c.answered().took().compareTo(TIMEOUT.dividedBy(2)) < 0).count();
    }


    /** The request ids on the requests topic. */
    private static Set<String> requestIds(TestCluster cluster) {
        Set<String> ids = new HashSet<>();
        for (ConsumerRecord<String, byte[]> record : cluster.readAll(cluster.topics().requests())) {
            try {
                ids.add(JSON.readTree(record.value()).path("requestId").asText());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ids;
    }
}

package dev.quotaenforcer.it;

import dev.quotaenforcer.client.AsyncQuotaClient;
import dev.quotaenforcer.client.GatewayDecision;
import dev.quotaenforcer.client.QuotaClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A gateway's traffic at a fixed rate for outage tests: each tick one {@link QuotaClient#check} (ids
 * {@code c-N}) and, if given an {@link AsyncQuotaClient}, one {@link AsyncQuotaClient#record} (ids
 * {@code r-N}), round-robin over the keys, noting when each check was asked and answered, and how.
 */
final class GatewayTraffic implements AutoCloseable {

    /**
     * One check: when it was asked (this JVM's nano clock), how long {@code check} took to return, and
     * its answer, once it came.
     */
    record Check(String requestId, long askedNanos, Duration call, CompletableFuture<Answer> answer) {

        /** The answer, which must have come by now. */
        Answer answered() {
            if (!answer.isDone()) {
                throw new AssertionError("check " + requestId + " has no answer");
            }
            return answer.join();
        }
    }

    /** A check's answer and how long after the ask it came. */
    record Answer(GatewayDecision decision, Duration took) {
    }

    private final QuotaClient client;
    private final AsyncQuotaClient async;
    private final List<String> keys;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "gateway-traffic");
        thread.setDaemon(true);
        return thread;
    });
    private final ConcurrentLinkedQueue<Check> checks = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> recorded = new ConcurrentLinkedQueue<>();
    private final AtomicInteger ticks = new AtomicInteger();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    private final long periodNanos;

    private GatewayTraffic(QuotaClient client, AsyncQuotaClient async, List<String> keys, int perSecond) {
        this.client = client;
        this.async = async;
        this.keys = List.copyOf(keys);
        this.periodNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
    }

    /** Starts {@code perSecond} ticks a second; {@code async} may be null. */
    static GatewayTraffic start(QuotaClient client, AsyncQuotaClient async, List<String> keys, int perSecond) {
        GatewayTraffic traffic = new GatewayTraffic(client, async, keys, perSecond);
        traffic.ticker.scheduleAtFixedRate(traffic::tick, 0, traffic.periodNanos, TimeUnit.NANOSECONDS);
        return traffic;
    }

    private void tick() {
        try {
            int n = ticks.getAndIncrement();
            String apiKey = keys.get(n % keys.size());
            String id = "c-" + n;
            long asked = System.nanoTime();
            CompletableFuture<Answer> answer = client.check(apiKey, 1, id)
                    .thenApply(decision -> new Answer(decision, Duration.ofNanos(System.nanoTime() - asked)));
            checks.add(new Check(id, asked, Duration.ofNanos(System.nanoTime() - asked), answer));
            if (async != null) {
                async.record(apiKey, 1, "r-" + n);
                recorded.add("r-" + n);
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }

    /** Waits until {@code count} more ticks have passed: the fixed rate is the test's clock. */
    void ticksFor(int count) throws InterruptedException {
        int target = ticks.get() + count;
        TestCluster.awaitCondition(count + " more gateway ticks", () -> ticks.get() >= target,
                Duration.ofSeconds(30 + count));
    }

    /** Waits until a check asked from now on is answered by the enforcer, not the failure policy. */
    void awaitDecidedByTheEnforcer(Duration wait) throws InterruptedException {
        long from = System.nanoTime();
        TestCluster.awaitCondition("a check answered by the enforcer", () -> checks.stream().anyMatch(c -> c.askedNanos() >= from
                && c.answer().isDone() && !c.answer().join().decision().byFailurePolicy()), wait);
    }

    /** Stops ticking and waits until every check is answered; the checks in the order asked. */
    List<Check> stop(Duration answerWait) throws InterruptedException {
        ticker.shutdown();
        if (!ticker.awaitTermination(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the gateway traffic did not stop within 30 s");
        }
        if (failure.get() != null) {
            throw new AssertionError("a check or record threw: " + failure.get(), failure.get());
        }
        TestCluster.awaitCondition("every check answered", () -> checks.stream().allMatch(c -> c.answer().isDone()),
                answerWait);
        return new ArrayList<>(checks);
    }

    /** The ids of the requests handed to {@link AsyncQuotaClient#record}, in order. */
    List<String> recorded() {
        return new ArrayList<>(recorded);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}

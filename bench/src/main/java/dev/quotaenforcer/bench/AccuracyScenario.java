package dev.quotaenforcer.bench;

import java.time.Duration;
import java.util.List;

/** Scenario 4: how often the sliding window counter judges differently from the exact log on one bursty trace. */
public final class AccuracyScenario implements Scenario {

    /** Cloudflare's published figure for its sliding window counter: 0.003% of 400M requests misjudged. */
    static final double CLOUDFLARE_SHARE = 0.003 / 100;

    static final long LIMIT = 100;
    static final Duration WINDOW = Duration.ofMinutes(1);

    @Override
    public String name() {
        return "accuracy";
    }

    @Override
    public String description() {
        return "Replays one seeded bursty trace through the sliding window counter and the exact sliding window log "
                + "(" + LIMIT + " per " + WINDOW.toSeconds() + " s): the counter's decisions the exact rule would have "
                + "made otherwise, and how far over the limit the counter let any window get.";
    }

    @Override
    public ScenarioResult run(BenchContext context) {
        int keys = context.quick() ? 200 : 2_000;
        Duration duration = context.quick() ? Duration.ofHours(1) : Duration.ofHours(2);
        BurstyTrace trace = new BurstyTrace(context.seed(), keys, duration.toMillis(), LIMIT, WINDOW.toMillis());
        AccuracyTally tally = new AccuracyTally(LIMIT, WINDOW);
        for (int key = 0; key < keys; key++) {
            tally.replay(trace.times(key));
            if ((key + 1) % Math.max(1, keys / 5) == 0) {
                context.progress().say(name(), "replayed " + (key + 1) + "/" + keys + " keys, " + tally.requests() + " requests");
            }
        }
        return result(tally, duration);
    }

    ScenarioResult result(AccuracyTally tally, Duration duration) {
        double requests = tally.requests();
        double misjudged = tally.misjudged() / requests;
        double differently = tally.decidedDifferently() / requests;
        double overshoot = (double) (tally.counterMaxWindow() - tally.limit()) / tally.limit();
        ScenarioResult.Builder result = ScenarioResult.builder(this, "sliding window counter vs exact log")
                .figure("keys", tally.keys(), "keys")
                .figure("requests", tally.requests(), "requests")
                .figure("counterAllowed", tally.counterAllowed(), "requests")
                .figure("falseAllows", tally.falseAllows(), "requests")
                .figure("falseDenies", tally.falseDenies(), "requests")
                .figure("misjudgedShare", misjudged, "share")
                .figure("nearLimitRequests", tally.nearLimit(), "requests")
                .figure("nearLimitMisjudged", tally.nearLimitMisjudged(), "requests")
                .figure("logAllowed", tally.logAllowed(), "requests")
                .figure("counterOnlyAllowed", tally.counterOnlyAllowed(), "requests")
                .figure("logOnlyAllowed", tally.logOnlyAllowed(), "requests")
                .figure("decidedDifferentlyShare", differently, "share")
                .figure("limit", tally.limit(), "requests per window")
                .figure("counterMaxWindow", tally.counterMaxWindow(), "requests per window")
                .figure("logMaxWindow", tally.logMaxWindow(), "requests per window")
                .figure("keysOverLimit", tally.keysOverLimit(), "keys")
                .figure("cloudflareShare", CLOUDFLARE_SHARE, "share");
        String near = Math.round(AccuracyTally.NEAR * 100) + "%";
        result.table(new Table("Counter decisions judged by the exact log on the counter's own history ("
                + tally.requests() + " requests of " + tally.keys() + " keys over " + duration.toMinutes()
                + " min of trace)", List.of("", "requests", "share"), List.of(
                row("allowed by the counter", tally.counterAllowed(), requests),
                row("false allows (counter allowed, exact rule denies)", tally.falseAllows(), requests),
                row("false denies (counter denied, exact rule allows)", tally.falseDenies(), requests),
                row("misjudged", tally.misjudged(), requests),
                row("arrived with the exact window at least " + near + " full", tally.nearLimit(), requests),
                row("misjudged among those", tally.nearLimitMisjudged(), requests))));
        result.table(new Table("Each limiter alone on the trace", List.of("", "requests", "share"), List.of(
                row("allowed by the counter", tally.counterAllowed(), requests),
                row("allowed by the log", tally.logAllowed(), requests),
                row("only the counter allowed", tally.counterOnlyAllowed(), requests),
                row("only the log allowed", tally.logOnlyAllowed(), requests),
                row("decided differently", tally.decidedDifferently(), requests))));
        result.table(new Table("Most requests admitted in any " + WINDOW.toSeconds() + " s window", List.of("", "requests",
                "over the limit"), List.of(
                List.of("limit", Long.toString(tally.limit()), "-"),
                List.of("sliding window counter", Long.toString(tally.counterMaxWindow()), Numbers.percent(overshoot)),
                List.of("sliding window log", Long.toString(tally.logMaxWindow()),
                        Numbers.percent((double) (tally.logMaxWindow() - tally.limit()) / tally.limit())),
                List.of("keys whose counter went over", Long.toString(tally.keysOverLimit()), "of " + tally.keys()))));
        result.table(new Table("Beside Cloudflare", List.of("", "requests", "misjudged"), List.of(
                List.of("Cloudflare (published)", "400000000", Numbers.percent(CLOUDFLARE_SHARE)),
                List.of("this trace", Long.toString(tally.requests()), Numbers.percent(misjudged)))));
        result.chart(new Chart("Counter decisions misjudged", "% of requests", List.of(
                new Chart.Bar("false allows", 100 * tally.falseAllows() / requests, 0),
                new Chart.Bar("false denies", 100 * tally.falseDenies() / requests, 0),
                new Chart.Bar("misjudged", 100 * misjudged, 0),
                new Chart.Bar("Cloudflare (published)", 100 * CLOUDFLARE_SHARE, 0),
                new Chart.Bar("decided differently, each alone", 100 * differently, 0))));
        result.chart(new Chart("Most requests admitted in any window", "requests", List.of(
                new Chart.Bar("limit", tally.limit(), 0),
                new Chart.Bar("sliding window counter", tally.counterMaxWindow(), 0),
                new Chart.Bar("sliding window log", tally.logMaxWindow(), 0))));
        explain(result, tally, misjudged);
        return result.build();
    }

    /** Why our share differs from Cloudflare's, in terms of this trace's own counts. */
    private static void explain(ScenarioResult.Builder result, AccuracyTally tally, double misjudged) {
        double near = (double) tally.nearLimit() / tally.requests();
        double nearShareOfErrors = tally.misjudged() == 0 ? 0 : (double) tally.nearLimitMisjudged() / tally.misjudged();
        double errorRateNear = tally.nearLimit() == 0 ? 0 : (double) tally.nearLimitMisjudged() / tally.nearLimit();
        result.note("Ours: " + Numbers.percent(misjudged) + " of requests misjudged; Cloudflare reports "
                + Numbers.percent(CLOUDFLARE_SHARE) + " of 400M requests from 270,000 sources; ours is "
                + Numbers.of(misjudged / CLOUDFLARE_SHARE) + "x theirs.");
        result.note("Only requests near the limit can be misjudged: far below it both rules admit, far above both deny. "
                + "This trace is built to keep every key there, bursting to 1.5-6x its limit, so "
                + Numbers.percent(near) + " of its requests arrive with the exact window at least "
                + Math.round(AccuracyTally.NEAR * 100) + "% full; they carry " + Numbers.percent(nearShareOfErrors)
                + " of the misjudgments, " + Numbers.percent(errorRateNear) + " of them misjudged. Cloudflare's "
                + "sources are mostly far from their thresholds, so its denominator is dominated by requests no "
                + "approximation gets wrong: at our near-limit error rate, Cloudflare's figure would mean about "
                + Numbers.percent(errorRateNear == 0 ? 0 : CLOUDFLARE_SHARE / errorRateNear)
                + " of its requests arriving near a limit.");
        result.note("A false deny leaves the exact window's room unused, so while the counter keeps denying a burst, "
                + "every request that could have had that room counts again: the " + Numbers.percent(
                        (double) tally.falseDenies() / tally.requests()) + " of false denies count requests, not free "
                + "places in a window. False allows, " + Numbers.percent((double) tally.falseAllows() / tally.requests())
                + ", are the requests that really went over.");
        result.note("Each limiter alone decides " + Numbers.percent((double) tally.decidedDifferently() / tally.requests())
                + " of requests differently: after a first disagreement the two hold different histories, so that "
                + "figure counts the drift that follows, not the approximation alone.");
        result.note("The counter assumes the previous window's requests were spread evenly; a burst at the end of a "
                + "window breaks that and lets the next window admit more: at most " + tally.counterMaxWindow()
                + " requests in one window against a limit of " + tally.limit() + " (" + tally.keysOverLimit() + " of "
                + tally.keys() + " keys went over at some point). The log alone never exceeded " + tally.logMaxWindow()
                + ".");
    }

    private static List<String> row(String label, long count, double requests) {
        return List.of(label, Long.toString(count), Numbers.percent(count / requests));
    }
}

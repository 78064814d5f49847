package dev.quotaenforcer.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the enforcer's own log says about its state: the restore summaries of {@code RestoreLog} and
 * the expiry sweeps {@code QuotaProcessor} logs at debug level. The state scenario reads a separate
 * enforcer process through these lines, as an operator would.
 */
final class EnforcerLogLines {

    private static final Pattern RESTORED = Pattern.compile("Restored (\\d+) records in (\\d+) ms: (.*) \\((\\d+) partitions\\)");
    private static final Pattern STORE_COUNT = Pattern.compile("([\\w.-]+) (\\d+)");
    private static final Pattern SWEEP = Pattern.compile("Expiry sweep of task (\\S+): (\\d+) keys scanned, (\\d+) deleted in (\\d+) us");

    private EnforcerLogLines() {
    }

    /** One restore of the process's stores: records in all, per store, and the time from first start to last end. */
    record Restore(long records, long millis, Map<String, Long> recordsByStore, int partitions) {
    }

    /** One expiry sweep of one task's store. */
    record Sweep(String task, long scanned, long deleted, long micros) {
    }

    /** The last restore that included {@code store}, if any. */
    static Optional<Restore> lastRestoreOf(List<String> lines, String store) {
        Restore last = null;
        for (String line : lines) {
            Matcher matcher = RESTORED.matcher(line);
            if (matcher.find()) {
                Map<String, Long> byStore = new TreeMap<>();
                Matcher count = STORE_COUNT.matcher(matcher.group(3));
                while (count.find()) {
                    byStore.put(count.group(1), Long.parseLong(count.group(2)));
                }
                if (byStore.containsKey(store)) {
                    last = new Restore(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)), byStore,
                            Integer.parseInt(matcher.group(4)));
                }
            }
        }
        return Optional.ofNullable(last);
    }

    /** Every expiry sweep logged, in log order. */
    static List<Sweep> sweeps(List<String> lines) {
        List<Sweep> sweeps = new ArrayList<>();
        for (String line : lines) {
            Matcher matcher = SWEEP.matcher(line);
            if (matcher.find()) {
                sweeps.add(new Sweep(matcher.group(1), Long.parseLong(matcher.group(2)), Long.parseLong(matcher.group(3)),
                        Long.parseLong(matcher.group(4))));
            }
        }
        return sweeps;
    }

    /** Each task's last sweep: together, one sweep of every key the process held at the end. */
    static List<Sweep> lastSweepPerTask(List<Sweep> sweeps) {
        Map<String, Sweep> last = new TreeMap<>();
        sweeps.forEach(sweep -> last.put(sweep.task(), sweep));
        return List.copyOf(last.values());
    }
}

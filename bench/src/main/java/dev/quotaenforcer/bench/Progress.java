package dev.quotaenforcer.bench;

import java.io.PrintWriter;
import java.util.Locale;

/** Progress lines while the benchmarks run, stamped with the seconds since the run started. */
public final class Progress {

    private final PrintWriter out;
    private final long startNanos = System.nanoTime();

    public Progress(PrintWriter out) {
        this.out = out;
    }

    public void say(String scenario, String message) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        out.printf(Locale.ROOT, "[bench %6.1f s] %s: %s%n", seconds, scenario, message);
        out.flush();
    }
}

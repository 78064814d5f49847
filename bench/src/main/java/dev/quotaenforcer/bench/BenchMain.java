package dev.quotaenforcer.bench;

import dev.quotaenforcer.Main;

/** Entry point of {@code java -jar quota-enforcer-bench.jar}: the benchmark scenarios, outside the server jar. */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) {
        System.exit(Main.execute(new BenchCommand(), args));
    }
}

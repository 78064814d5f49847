package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The freeze meter as the latency scenario runs it: a process of its own that notes when every core stopped. */
class MachineFreezesIT {

    @TempDir
    Path dir;

    @Test
    void pinsAThreadToEachCoreAndNotesAStopOfTheWholeProcessOnEveryCore() throws Exception {
        Path log = dir.resolve("freezes.log");
        int cores = Runtime.getRuntime().availableProcessors();
        try (MachineFreezes meter = MachineFreezes.start(log)) {
            String ready = Files.readAllLines(log).stream().filter(line -> line.contains("running on")).findFirst()
                    .orElseThrow();
            for (int core = 0; core < cores; core++) {
                assertTrue(ready.contains("core " + core + " pinned"), ready);
            }
            // Stopping the process stops each of its threads as a core taken by the host would.
            long stoppedAt = System.currentTimeMillis();
            signal("STOP", meter.pid());
            TimeUnit.MILLISECONDS.sleep(300);
            signal("CONT", meter.pid());
            long resumedAt = System.currentTimeMillis();
            List<MachineFreezes.Freeze> freezes = List.of();
            for (int attempt = 0; attempt < 50 && freezes.size() < cores; attempt++) {
                TimeUnit.MILLISECONDS.sleep(100);
                freezes = meter.overlapping(stoppedAt, resumedAt, 250);
            }
            assertEquals(cores, freezes.stream().mapToInt(MachineFreezes.Freeze::cpu).distinct().count(),
                    "a freeze of at least 250 ms on every core: " + freezes);
            assertTrue(freezes.stream().allMatch(f -> f.startEpochMs() >= stoppedAt - 5 && f.endEpochMs() <= resumedAt + 50),
                    "each within the stop: " + freezes);
        }
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + signal);
    }
}

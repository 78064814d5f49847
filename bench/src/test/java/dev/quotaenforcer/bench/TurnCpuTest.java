package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CPU per request and the machine's busy share, counted over a setup's turns. */
class TurnCpuTest {

    @TempDir
    Path dir;

    @Test
    void turnsPooledAddWhatEachTurnUsedAndNothingOfWhatCameBetweenThem() {
        TurnCpu first = new TurnCpu(40_000, 3e9, 5e9, 8e9, 1_500, 2_000)
                .since(new TurnCpu(10_000, 2e9, 3e9, 4e9, 1_000, 1_200));
        // Between the turns the other setup answered: its CPU and requests are not counted.
        TurnCpu second = new TurnCpu(90_000, 6e9, 11e9, 18e9, 3_100, 4_000)
                .since(new TurnCpu(60_000, 5e9, 8e9, 12e9, 2_500, 3_200));

        TurnCpu pooled = first.plus(second);

        assertEquals(60_000, pooled.requests());
        assertEquals(2e9 / 60_000 / 1e3, pooled.applicationMicros(), 1e-9);
        // The rest of the JVM is its whole CPU less the application's: 5 s less 2 s.
        assertEquals(3e9 / 60_000 / 1e3, pooled.restOfJvmMicros(), 1e-9);
        assertEquals(10e9 / 60_000 / 1e3, pooled.brokerMicros(), 1e-9);
        assertEquals(1_100.0 / 1_600, pooled.machineBusy(), 1e-12);
    }

    @Test
    void aTurnWithoutRequestsOrTicksHasNoFiguresRatherThanDividingByZero() {
        TurnCpu idle = new TurnCpu(0, 1e6, 2e6, 3e6, 0, 0);

        assertTrue(Double.isNaN(idle.applicationMicros()));
        assertTrue(Double.isNaN(idle.brokerMicros()));
        assertTrue(Double.isNaN(idle.machineBusy()));
    }

    @Test
    void theMachineIsBusyExceptWhenIdleWaitingForIoOrStolenByItsHost() throws IOException {
        Path stat = dir.resolve("stat");
        // user nice system idle iowait irq softirq steal guest guest_nice
        Files.writeString(stat, "cpu  100 5 40 800 20 3 2 30 7 0\ncpu0 50 2 20 400 10 1 1 15 3 0\n");

        assertArrayEquals(new long[] {150, 1000}, TurnCpu.machineTicks(stat));
    }

    @Test
    void aMachineWithoutProcStatHasNoTicks() throws IOException {
        assertNull(TurnCpu.machineTicks(dir.resolve("missing")));
        Path odd = dir.resolve("odd");
        Files.writeString(odd, "intr 1 2 3\n");
        assertNull(TurnCpu.machineTicks(odd));
    }
}

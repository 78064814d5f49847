package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class MachineFreezesTest {

    private static final MachineFreezes.Freeze SHORT = new MachineFreezes.Freeze(0, 1_000, 25);
    private static final MachineFreezes.Freeze BEFORE = new MachineFreezes.Freeze(1, 1_800, 100);
    private static final MachineFreezes.Freeze INSIDE = new MachineFreezes.Freeze(0, 3_000, 100);
    private static final MachineFreezes.Freeze AFTER = new MachineFreezes.Freeze(1, 5_001, 100);

    @Test
    void readsBackTheFreezesItsLinesSayAmongOtherOutput() {
        List<String> lines = List.of("machine freeze meter running on 2 cores: core 0 pinned; core 1 pinned",
                MachineFreezes.line(SHORT), MachineFreezes.line(INSIDE), "a JVM warning");

        assertEquals(List.of(SHORT, INSIDE), MachineFreezes.parse(lines));
    }

    @Test
    void aFreezeCountsForAWindowItOverlapsAtEitherEndWhenItLastedLongEnough() {
        List<MachineFreezes.Freeze> all = List.of(SHORT, BEFORE, INSIDE, AFTER);

        assertEquals(List.of(BEFORE, INSIDE), MachineFreezes.overlapping(all, 1_900, 5_000, 40));
        assertEquals(List.of(INSIDE), MachineFreezes.overlapping(all, 1_901, 5_000, 40));
        assertEquals(List.of(SHORT, BEFORE, INSIDE), MachineFreezes.overlapping(all, 0, 5_000, 20));
    }
}

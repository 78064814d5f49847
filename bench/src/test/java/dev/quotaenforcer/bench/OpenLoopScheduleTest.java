package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class OpenLoopScheduleTest {

    @Test
    void spacesRequestsEvenlyFromTheStartAtTheRate() {
        OpenLoopSchedule schedule = new OpenLoopSchedule(1_000, 5_000);

        assertEquals(1_000, schedule.intendedNanos(0));
        assertEquals(1_000 + 200_000, schedule.intendedNanos(1));
        assertEquals(1_000 + 1_000_000_000, schedule.intendedNanos(5_000));
    }

    @Test
    void keepsFractionalSpacingWithoutDrift() {
        OpenLoopSchedule schedule = new OpenLoopSchedule(0, 3);

        assertEquals(333_333_333, schedule.intendedNanos(1));
        assertEquals(3_000_000_000L, schedule.intendedNanos(9));
    }

    @Test
    void countsTheRequestsIntendedWithinADuration() {
        OpenLoopSchedule schedule = new OpenLoopSchedule(0, 20_000);

        assertEquals(60_000, schedule.countWithin(3_000_000_000L));
        assertEquals(1, schedule.countWithin(1));
        assertEquals(0, schedule.countWithin(0));
    }

    @Test
    void refusesARateThatIsNotPositive() {
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopSchedule(0, 0));
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopSchedule(0, Double.NaN));
    }
}

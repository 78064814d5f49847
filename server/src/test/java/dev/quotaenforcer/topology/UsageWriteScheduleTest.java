package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class UsageWriteScheduleTest {

    @Test
    void partitionZeroWritesOneIntervalAfterItStartsAndEveryIntervalAfter() {
        UsageWriteSchedule schedule = new UsageWriteSchedule(1_000, 0, 5_000);

        assertFalse(schedule.due(5_999));
        assertTrue(schedule.due(6_000));
        assertFalse(schedule.due(6_999));
        assertTrue(schedule.due(7_000));
    }

    @Test
    void eachPartitionWritesInItsOwnTenthOfTheInterval() {
        UsageWriteSchedule third = new UsageWriteSchedule(1_000, 3, 0);
        UsageWriteSchedule thirteenth = new UsageWriteSchedule(1_000, 13, 0);

        assertFalse(third.due(1_299));
        assertTrue(third.due(1_300));
        assertTrue(third.due(2_300));
        assertTrue(thirteenth.due(1_300), "partitions ten apart share a phase");
    }

    @Test
    void aThreadHeldUpForSeveralIntervalsWritesOnceAndKeepsItsPhase() {
        UsageWriteSchedule schedule = new UsageWriteSchedule(1_000, 2, 0);

        assertTrue(schedule.due(4_750));
        assertFalse(schedule.due(5_199));
        assertTrue(schedule.due(5_200));
    }

    @Test
    void aShortIntervalIsAskedAboutEveryMillisecond() {
        assertEquals(1, UsageWriteSchedule.phaseMs(10));
        assertEquals(1, UsageWriteSchedule.phaseMs(5));
        assertEquals(100, UsageWriteSchedule.phaseMs(1_000));
    }
}

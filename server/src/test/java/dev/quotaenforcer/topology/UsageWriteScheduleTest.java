package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class UsageWriteScheduleTest {

    @Test
    void partitionZeroWritesFirstOneIntervalAfterItStarts() {
        assertEquals(1_000, UsageWriteSchedule.firstDelayMs(1_000, 0));
    }

    @Test
    void eachPartitionWritesInItsOwnTenthOfTheInterval() {
        assertEquals(1_300, UsageWriteSchedule.firstDelayMs(1_000, 3));
        assertEquals(1_900, UsageWriteSchedule.firstDelayMs(1_000, 9));
        assertEquals(1_300, UsageWriteSchedule.firstDelayMs(1_000, 13), "partitions ten apart share a phase");
    }

    @Test
    void anIntervalShorterThanItsPhasesWritesEveryPartitionAfterOneInterval() {
        assertEquals(5, UsageWriteSchedule.firstDelayMs(5, 7));
    }
}

package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A commit's time in Kafka's calls, pooled over turns. */
class CommitTimesTest {

    @Test
    void turnsPooledCountEveryCommitOfEachTurnOnce() {
        CommitTimes firstTurn = new CommitTimes(70, 9e6, 3e6, 1e6).since(new CommitTimes(60, 4e6, 1e6, 0));
        CommitTimes secondTurn = new CommitTimes(130, 20e6, 8e6, 5e6).since(new CommitTimes(100, 15e6, 2e6, 2e6));

        CommitTimes pooled = firstTurn.plus(secondTurn);

        assertEquals(40, pooled.commits());
        assertEquals(0.25, pooled.flushMsPerCommit(), 1e-9, "10 ms over 40 commits, not the mean of 0.5 and 0.167");
        assertEquals(0.2, pooled.sendOffsetsMsPerCommit(), 1e-9);
        assertEquals(0.1, pooled.commitMsPerCommit(), 1e-9);
    }

    @Test
    void withoutACommitThereIsNoTimePerCommit() {
        assertTrue(Double.isNaN(new CommitTimes(0, 0, 0, 0).flushMsPerCommit()));
    }
}

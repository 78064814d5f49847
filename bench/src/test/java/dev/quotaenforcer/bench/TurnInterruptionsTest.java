package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Collections, retried records and compiling, counted over a setup's turns. */
class TurnInterruptionsTest {

    @Test
    void turnsPooledAddWhatEachTurnGainedAndNothingOfWhatCameBetweenThem() {
        TurnInterruptions firstTurn = new TurnInterruptions(12, 60, 3, 400).since(new TurnInterruptions(10, 50, 1, 380));
        // Collections between the turns (the other setup's) are not counted: each turn starts from its own totals.
        TurnInterruptions secondTurn = new TurnInterruptions(20, 95, 3, 900).since(new TurnInterruptions(17, 80, 3, 450));

        TurnInterruptions pooled = firstTurn.plus(secondTurn);

        assertEquals(5, pooled.collections());
        assertEquals(25, pooled.collectionMs());
        assertEquals(2, pooled.retriedRecords());
        assertEquals(470, pooled.compilingMs());
    }
}

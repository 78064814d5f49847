package dev.quotaenforcer.limit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Logs share append-only buffers; whatever is derived from whichever log, each keeps exactly its own entries. */
class RequestLogTest {

    private static final RequestLog EMPTY = new RequestLog(new long[0], new long[0], 0, false);

    @Test
    void twoAdmissionsOntoTheSameLogKeepTheirOwnEntries() {
        RequestLog base = EMPTY.plus(10, 1).plus(20, 2);
        RequestLog first = base.plus(30, 3);
        RequestLog second = base.plus(40, 4);

        assertArrayEquals(new long[] {10, 20}, base.times());
        assertArrayEquals(new long[] {10, 20, 30}, first.times());
        assertArrayEquals(new long[] {1, 2, 3}, first.costs());
        assertArrayEquals(new long[] {10, 20, 40}, second.times());
        assertArrayEquals(new long[] {1, 2, 4}, second.costs());
        assertEquals(7, second.total());
    }

    @Test
    void theArraysALogIsBuiltFromAreNeverWritten() {
        long[] times = {10, 20};
        long[] costs = {1, 1};
        RequestLog log = new RequestLog(times, costs, 20, false);
        log.plus(30, 1);
        log.plus(20, 5);
        log.withoutOldest(1, 30).plus(40, 1);

        assertArrayEquals(new long[] {10, 20}, times);
        assertArrayEquals(new long[] {1, 1}, costs);
    }

    @Test
    void aSliceEqualsTheSameEntriesInExactArrays() {
        RequestLog slice = EMPTY.plus(10, 1).plus(20, 2).plus(30, 3).withoutOldest(1, 30);
        RequestLog exact = new RequestLog(new long[] {20, 30}, new long[] {2, 3}, 30, false);

        assertEquals(exact, slice);
        assertEquals(exact.hashCode(), slice.hashCode());
        assertEquals(exact.toString(), slice.toString());
        assertEquals(5, slice.total());
    }

    @Test
    void randomDerivationsFromRandomEarlierLogsMatchAPlainList() {
        Random random = new Random(5);
        List<RequestLog> logs = new ArrayList<>(List.of(EMPTY));
        List<List<long[]>> models = new ArrayList<>(List.of(List.of()));
        for (int step = 0; step < 20_000; step++) {
            int pick = random.nextInt(logs.size());
            RequestLog log = logs.get(pick);
            List<long[]> model = new ArrayList<>(models.get(pick));
            RequestLog next;
            if (random.nextInt(4) == 0 && log.size() > 0) {
                int drop = 1 + random.nextInt(log.size());
                next = log.withoutOldest(drop, log.updatedAt());
                model.subList(0, drop).clear();
            } else {
                long time = log.size() == 0 ? step : log.time(log.size() - 1) + random.nextInt(3);
                long cost = 1 + random.nextInt(5);
                next = log.plus(time, cost);
                if (!model.isEmpty() && model.get(model.size() - 1)[0] == time) {
                    long[] last = model.get(model.size() - 1);
                    model.set(model.size() - 1, new long[] {time, last[1] + cost});
                } else {
                    model.add(new long[] {time, cost});
                }
            }
            logs.add(next);
            models.add(model);
        }
        for (int i = 0; i < logs.size(); i++) {
            List<long[]> model = models.get(i);
            RequestLog log = logs.get(i);
            assertArrayEquals(model.stream().mapToLong(e -> e[0]).toArray(), log.times(), "log " + i);
            assertArrayEquals(model.stream().mapToLong(e -> e[1]).toArray(), log.costs(), "log " + i);
            assertEquals(Arrays.stream(log.costs()).sum(), log.total(), "log " + i);
        }
    }
}

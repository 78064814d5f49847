package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The benchmark's window holds the ids it is set for, and every request it times is new, warm or cold. */
class RequestIdsBenchmarksTest {

    @Test
    void theWindowStaysAsFullAsItIsSetForWhileEveryTimedRequestIsNew() throws Exception {
        for (boolean cold : new boolean[] {false, true}) {
            RequestIdsBenchmarks benchmark = new RequestIdsBenchmarks();
            benchmark.ids = 1_000;
            benchmark.cold = cold;
            benchmark.fillWindow();
            assertEquals(1_000, benchmark.heldIds(), 1, "filled, cold " + cold);

            // Past the 4,000 ids the benchmark makes when warm, so each is sent again; each cold one scans 64 MiB.
            for (int i = 0, requests = cold ? 300 : 5_000; i < requests; i++) {
                benchmark.fillCaches();
                // newRequest throws if a request it sends is found in the window.
                assertNull(benchmark.newRequest());
            }

            assertEquals(1_000, benchmark.heldIds(), 1, "after more requests, cold " + cold);
            benchmark.closeStores();
        }
    }
}

package dev.quotaenforcer.topology;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import org.junit.jupiter.api.Test;

/** The benchmarked writers write the same bytes, so their figures compare like for like. */
class DecisionJsonBenchmarksTest {

    @Test
    void writersAgreeOnEveryBenchmarkedShape() {
        for (DecisionJsonBenchmarks.Shape shape : DecisionJsonBenchmarks.Shape.values()) {
            DecisionJsonBenchmarks.Writers writers = new DecisionJsonBenchmarks.Writers();
            writers.shape = shape;
            assertDoesNotThrow(writers::setUp, shape.name());
        }
    }

    @Test
    void writersAgreeOnNullFieldsAndEmptyOrMissingHeaders() throws Exception {
        DecisionJsonBenchmarks.Writers writers = new DecisionJsonBenchmarks.Writers();
        writers.shape = DecisionJsonBenchmarks.Shape.DENIED;
        writers.setUp();
        Decision rejected = Decision.rejected("r-1", "nope", null, Reason.UNKNOWN_API_KEY, 1_764_531_312_000L);

        writers.verify(rejected);
        writers.verify(rejected.withHeaders(null));
    }
}

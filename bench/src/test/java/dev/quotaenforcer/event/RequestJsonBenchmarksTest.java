package dev.quotaenforcer.event;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import org.junit.jupiter.api.Test;

/** The benchmarked readers read the same request, so their figures compare like for like. */
class RequestJsonBenchmarksTest {

    @Test
    void readersAgreeOnEveryBenchmarkedShape() {
        for (RequestJsonBenchmarks.Shape shape : RequestJsonBenchmarks.Shape.values()) {
            RequestJsonBenchmarks.Readers readers = new RequestJsonBenchmarks.Readers();
            readers.shape = shape;
            assertDoesNotThrow(readers::setUp, shape.name());
        }
    }
}

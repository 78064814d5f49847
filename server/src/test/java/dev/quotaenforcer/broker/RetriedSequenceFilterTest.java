package dev.quotaenforcer.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which of the embedded broker's error lines the filter demotes to warnings, and that it leaves the rest alone. */
class RetriedSequenceFilterTest {

    private static final String REFUSED = "Invalid sequence number for producer 7 at offset 2 in partition "
            + "quota.plan-catalog-0: 1 (incoming seq. number). Expected sequence 0 for transactions v2 idempotent "
            + "producer with no existing state.";

    private final LoggerContext context = new LoggerContext();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void logIntoAList() {
        RetriedSequenceFilter filter = new RetriedSequenceFilter();
        filter.start();
        context.addTurboFilter(filter);
        logged.setContext(context);
        logged.start();
        context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(logged);
    }

    @Test
    void theBrokersRefusalOfABatchThatOvertookAProducersFirstIsAWarningWithoutItsStackTrace() {
        context.getLogger(RetriedSequenceFilter.BROKER_LOGGER).error(
                "[ReplicaManager broker=1] Error processing append operation on partition x:quota.plan-catalog-0",
                new OutOfOrderSequenceException(REFUSED));

        assertEquals(1, logged.list.size());
        ILoggingEvent event = logged.list.get(0);
        assertEquals(Level.WARN, event.getLevel());
        assertEquals(RetriedSequenceFilter.BROKER_LOGGER, event.getLoggerName());
        assertEquals("[ReplicaManager broker=1] Error processing append operation on partition x:quota.plan-catalog-0 ("
                + REFUSED + "; the producer retries it)", event.getFormattedMessage());
        assertNull(event.getThrowableProxy());
    }

    @Test
    void otherErrorsStayErrorsWithTheirStackTraces() {
        OutOfOrderSequenceException gap = new OutOfOrderSequenceException(
                "Out of order sequence number for producer 35 at offset 1701 in partition p-0: "
                        + "51 (incoming seq. number), 49 (current end sequence number)");
        context.getLogger(RetriedSequenceFilter.BROKER_LOGGER).error("Error processing append operation", gap);
        context.getLogger("dev.quotaenforcer.Elsewhere").error("the same words elsewhere",
                new OutOfOrderSequenceException(REFUSED));
        context.getLogger(RetriedSequenceFilter.BROKER_LOGGER).error("no exception");

        assertEquals(List.of(Level.ERROR, Level.ERROR, Level.ERROR),
                logged.list.stream().map(ILoggingEvent::getLevel).toList());
        assertEquals(OutOfOrderSequenceException.class.getName(),
                logged.list.get(0).getThrowableProxy().getClassName());
    }
}

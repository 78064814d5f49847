package dev.quotaenforcer.broker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

/**
 * Logs the embedded broker's refusal of a batch that overtook its transactional producer's first at WARN,
 * without a stack trace, instead of ERROR: since KAFKA-18202 a broker on transactions v2 answers such a
 * batch with a retriable {@link OutOfOrderSequenceException}, which the producer retries, yet logs the
 * answer as an error. Everything else passes untouched.
 */
public final class RetriedSequenceFilter extends TurboFilter {

    static final String BROKER_LOGGER = "kafka.server.ReplicaManager";
    /** The broker's words for the retriable case, not for a sequence gap in a producer's existing state. */
    private static final String RETRIED = "Expected sequence 0 for transactions v2";

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (level != Level.ERROR || !(t instanceof OutOfOrderSequenceException) || t.getMessage() == null
                || !t.getMessage().contains(RETRIED) || !BROKER_LOGGER.equals(logger.getName())) {
            return FilterReply.NEUTRAL;
        }
        String message = params == null ? format : MessageFormatter.arrayFormat(format, params).getMessage();
        logger.warn("{} ({}; the producer retries it)", message, t.getMessage());
        return FilterReply.DENY;
    }
}

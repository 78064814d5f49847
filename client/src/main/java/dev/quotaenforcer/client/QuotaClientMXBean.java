package dev.quotaenforcer.client;

/**
 * What a {@link QuotaClient} counts, as the JMX MXBean {@code dev.quotaenforcer:type=QuotaClient,client=ID}, so a
 * gateway's JMX exporter hands it to Prometheus ({@code deploy/prometheus/gateway-jmx-exporter.yml}).
 */
public interface QuotaClientMXBean {

    /** Checks asked since the client was built. */
    long getChecks();

    /** Checks the failure policy answered: no decision came within the timeout, or the request could not be sent. */
    long getDecidedByFailurePolicy();

    /** Replies ignored: no check waited for them, or they were about another request. */
    long getMismatchedReplies();
}

package dev.quotaenforcer.topology;

import org.apache.kafka.common.header.Headers;

/**
 * An input record that cannot be used, on its way to the dead-letter topic with the original bytes.
 *
 * @param error     stable code, e.g. {@code INVALID_JSON} or {@code INVALID_PLAN}
 * @param reason    what is wrong, naming the field and value
 * @param key       the record's key bytes, as received
 * @param value     the record's value bytes, as received
 * @param headers   the record's headers, as received
 */
public record Rejection(String error, String reason, byte[] key, byte[] value, Headers headers) {
}

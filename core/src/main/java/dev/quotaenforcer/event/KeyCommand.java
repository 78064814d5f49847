package dev.quotaenforcer.event;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Instant;
import java.util.Locale;

/**
 * An operator's command about one API key, as published on the commands topic keyed by the key. The
 * enforcer applies it in the same task and store as the key's requests, so it takes effect between
 * two of them, exactly once; the topic itself is the audit log.
 *
 * @param policy    the policy to reset (null: all) or to grant on; null for block and unblock
 * @param amount    what a grant adds to the policy's allowance; null for the other types
 * @param until     when a block ends; null for a block without end, and for the other types
 * @param commandId an id the issuer chose, for the audit trail (optional)
 * @param issuer    who issued it (optional)
 * @param reason    why, in the issuer's words (optional)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "apiKey", "policy", "amount", "until", "commandId", "issuer", "reason"})
public record KeyCommand(Type type, String apiKey, String policy, Long amount, Instant until, String commandId,
                         String issuer, String reason) {

    /** What the command does. */
    public enum Type {
        /** Clears the counted state of one policy, or of all of them. */
        RESET,
        /** Adds to one policy's allowance until its current window ends. */
        GRANT,
        /** Denies every request of the key, until a time or until unblocked. */
        BLOCK,
        /** Lifts an operator's block. */
        UNBLOCK;

        /** The name in JSON: lower case. */
        @JsonValue
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        @JsonCreator
        public static Type of(String id) {
            for (Type type : values()) {
                if (type.id().equals(id)) {
                    return type;
                }
            }
            throw new IllegalArgumentException("unknown command type " + id);
        }
    }

    public static KeyCommand reset(String apiKey, String policy) {
        return new KeyCommand(Type.RESET, apiKey, policy, null, null, null, null, null);
    }

    public static KeyCommand grant(String apiKey, String policy, long amount) {
        return new KeyCommand(Type.GRANT, apiKey, policy, amount, null, null, null, null);
    }

    public static KeyCommand block(String apiKey, Instant until) {
        return new KeyCommand(Type.BLOCK, apiKey, null, null, until, null, null, null);
    }

    public static KeyCommand unblock(String apiKey) {
        return new KeyCommand(Type.UNBLOCK, apiKey, null, null, null, null, null, null);
    }

    /** The same command with its audit fields set. */
    public KeyCommand audited(String commandId, String issuer, String reason) {
        return new KeyCommand(type, apiKey, policy, amount, until, commandId, issuer, reason);
    }
}

package dev.quotaenforcer.limit;

/**
 * One policy's answer to one request.
 *
 * @param allowed           whether this policy admits the request
 * @param limit             the policy's limit (or bucket capacity)
 * @param remaining         what is left after this request (when allowed) or now (when denied)
 * @param resetSeconds      seconds until the policy would be back to its full allowance
 * @param retryAfterSeconds when denied, the smallest whole number of seconds after which the same
 *                          request would be admitted if nothing else arrived; {@link #NEVER} when
 *                          the cost exceeds what the policy can ever admit; 0 when allowed
 * @param delayMs           how long the gateway must hold an allowed request (leaky bucket queue)
 * @param denialStarted     true when this denial opens a new run of denials for the policy
 */
public record Verdict(boolean allowed, long limit, long remaining, long resetSeconds, long retryAfterSeconds,
                      long delayMs, boolean denialStarted) {

    /** Retry-After value meaning the request can never be admitted by this policy. */
    public static final long NEVER = -1;
}

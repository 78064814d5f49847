package dev.quotaenforcer.limit;

/**
 * Where one policy stands for a key at a moment, with no request being decided: what an operator
 * sees when asking how much of a limit is used.
 *
 * @param limit        the policy's limit (or bucket capacity)
 * @param remaining    what a request could still consume now
 * @param resetSeconds seconds until the policy is back to its full allowance
 */
public record Standing(long limit, long remaining, long resetSeconds) {

    /** What is used of the limit: the limit less what remains. */
    public long used() {
        return limit - remaining;
    }
}

package dev.quotaenforcer.engine;

import dev.quotaenforcer.engine.VarBytes.Reader;
import dev.quotaenforcer.engine.VarBytes.Writer;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.Reason;
import dev.quotaenforcer.plan.Plan;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;

/**
 * A decision in a few dozen bytes, as a remembered request keeps it: its fields as varints, its
 * plan and policy by name, no ids (the request's own) and no headers, which {@link RateLimitHeaders}
 * rebuilds from the fields and the plan. The decision's JSON with its headers takes ten times as much.
 */
public final class DecisionCodec {

    private static final int VERSION = 1;
    private static final ThreadLocal<Writer> SCRATCH = ThreadLocal.withInitial(() -> new Writer(128));

    private DecisionCodec() {
    }

    public static byte[] encode(Decision decision) {
        // Written into the thread's buffer and copied out at its size: one array per decision, not a buffer and its copy.
        Writer out = SCRATCH.get().reset();
        out.write(VERSION);
        out.write(decision.allowed() ? 1 : 0);
        out.text(decision.reason().name());
        out.text(decision.plan());
        out.text(decision.policy());
        out.unsigned(decision.limit());
        out.unsigned(decision.remaining());
        out.unsigned(decision.resetSeconds());
        out.signed(decision.retryAfterSeconds());
        out.unsigned(decision.delayMs());
        out.signed(decision.eventTime().toEpochMilli());
        return out.toByteArray();
    }

    /**
     * @param plans the plans in force by id: the headers are those of the decision's plan now, so they
     *              equal the original's unless the plan changed since (none when it is gone)
     * @throws IllegalArgumentException when the bytes are not a decision this version wrote
     */
    public static Decision decode(byte[] bytes, String requestId, String apiKey, Function<String, Plan> plans) {
        Reader in = new Reader(bytes);
        if (in.read() != VERSION) {
            throw new IllegalArgumentException("not a remembered decision of version " + VERSION);
        }
        boolean allowed = in.read() == 1;
        Reason reason = Reason.valueOf(text(in));
        String planId = text(in);
        Decision decision = new Decision(requestId, apiKey, planId, allowed, reason, text(in), in.unsigned(), in.unsigned(),
                in.unsigned(), in.signed(), in.unsigned(), Instant.ofEpochMilli(in.signed()), Map.of());
        Plan plan = planId == null ? null : plans.apply(planId);
        return plan == null ? decision : decision.withHeaders(RateLimitHeaders.of(plan, decision));
    }

    private static String text(Reader in) {
        long length = in.unsigned();
        if (length == 0) {
            return null;
        }
        byte[] utf8 = new byte[Math.toIntExact(length - 1)];
        for (int i = 0; i < utf8.length; i++) {
            utf8[i] = (byte) in.read();
        }
        return new String(utf8, StandardCharsets.UTF_8);
    }
}

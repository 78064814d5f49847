package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.Block;
import dev.quotaenforcer.event.Decision;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.KeyUsage;
import dev.quotaenforcer.event.PlanUsage;
import dev.quotaenforcer.event.QuotaExceeded;
import dev.quotaenforcer.event.RequestEvent;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;

/**
 * Every topic the enforcer reads or writes, named from one prefix ({@code quota} by default).
 *
 * <p>Inputs: {@code requests} (values are raw bytes, parsed by the topology, so a poison record can
 * never stop it; keys are read as UTF-8, which never fails: malformed bytes read as U+FFFD), {@code plans} and {@code api-keys} (compacted, written by operators), {@code commands} (raw
 * bytes of operators' admin commands, keyed and partitioned like requests; long retained, it is
 * their audit log). Outputs: {@code decisions},
 * {@code exceeded}, {@code dead-letter}. The two catalogs are compacted topics the enforcer writes
 * itself: the plans and assignments that passed validation, read back by every instance as global
 * tables, so an invalid update never displaces the last valid version. {@code replies} is the default
 * reply topic of gateways that wait for their decisions (one partition per gateway instance); more
 * may be created under the same name as a prefix.
 */
public record Topics(
        Topic<String, byte[]> requests,
        Topic<String, byte[]> plans,
        Topic<String, byte[]> apiKeys,
        Topic<String, Decision> decisions,
        Topic<String, QuotaExceeded> exceeded,
        Topic<byte[], byte[]> deadLetter,
        Topic<String, byte[]> planCatalog,
        Topic<String, String> keyCatalog,
        Topic<String, Decision> replies,
        Topic<String, KeyUsage> usage,
        Topic<String, Block> blocks,
        Topic<String, PlanUsage> planUsage,
        Topic<String, byte[]> commands) {

    /**
     * The largest record the enforcer writes to any topic but the dead-letter one: every id, name and
     * count in it is bounded where it enters (requests, headers, plans), so each output topic is only
     * required to accept this much. Under exactly-once a record the broker refuses aborts its
     * transaction, and the task would refuse it again on every retry.
     */
    public static final int MAX_OUTPUT_RECORD_BYTES = 64 * 1024;

    /** Name of the repartition topic re-keyed requests go through; Streams prefixes the application id. */
    public static final String REKEYED_REQUESTS = "requests-rekeyed";

    /** Serdes of the re-keyed requests: the parsed event, keyed by its API key. */
    public static final Topic<String, RequestEvent> REKEYED =
            new Topic<>(REKEYED_REQUESTS, Serdes.String(), new JsonSerde<>(RequestEvent.class));

    /** Name of the repartition topic re-keyed admin commands go through, to the task of their key. */
    public static final String REKEYED_COMMANDS = "commands-rekeyed";

    /** Serdes of the re-keyed commands: the parsed command, keyed by its API key. */
    public static final Topic<String, KeyCommand> REKEYED_COMMAND =
            new Topic<>(REKEYED_COMMANDS, Serdes.String(), new JsonSerde<>(KeyCommand.class));

    /** The repartition topic each task's share of a plan's hour goes through to be summed, keyed {@code <plan>@<hour>}. */
    static final Topic<String, PlanUsagePart> PLAN_USAGE_SHARES =
            new Topic<>("plan-usage-shares", Serdes.String(), new JsonSerde<>(PlanUsagePart.class));

    /** JSON of per-key hourly usage, as written to the usage topic. */
    static final FieldJsonSerde<KeyUsage> KEY_USAGE_SERDE = FieldJsonSerde.keyUsage();

    public static Topics withPrefix(String prefix) {
        return new Topics(
                new Topic<>(prefix + ".requests", Serdes.String(), Serdes.ByteArray()),
                new Topic<>(prefix + ".plans", Serdes.String(), Serdes.ByteArray()),
                new Topic<>(prefix + ".api-keys", Serdes.String(), Serdes.ByteArray()),
                new Topic<>(prefix + ".decisions", Serdes.String(), FieldJsonSerde.decisions()),
                new Topic<>(prefix + ".exceeded", Serdes.String(), new JsonSerde<>(QuotaExceeded.class)),
                new Topic<>(prefix + ".dead-letter", Serdes.ByteArray(), Serdes.ByteArray()),
                new Topic<>(prefix + ".plan-catalog", Serdes.String(), Serdes.ByteArray()),
                new Topic<>(prefix + ".key-catalog", Serdes.String(), Serdes.String()),
                new Topic<>(prefix + ".replies", Serdes.String(), FieldJsonSerde.decisions()),
                new Topic<>(prefix + ".usage", Serdes.String(), KEY_USAGE_SERDE),
                new Topic<>(prefix + ".blocks", Serdes.String(), new JsonSerde<>(Block.class)),
                new Topic<>(prefix + ".plan-usage", Serdes.String(), new JsonSerde<>(PlanUsage.class)),
                new Topic<>(prefix + ".commands", Serdes.String(), Serdes.ByteArray()));
    }

    /** The topics the enforcer writes decisions, events and figures to, each bounded by {@link #MAX_OUTPUT_RECORD_BYTES}. */
    public List<String> outputs() {
        return List.of(decisions.name(), exceeded.name(), planCatalog.name(), keyCatalog.name(), replies.name(),
                usage.name(), blocks.name(), planUsage.name());
    }

    /** Names of all the topics the application expects to exist (the repartition topic is Streams' own). */
    public List<String> names() {
        return List.of(requests.name(), plans.name(), apiKeys.name(), decisions.name(), exceeded.name(),
                deadLetter.name(), planCatalog.name(), keyCatalog.name(), replies.name(), usage.name(), blocks.name(),
                planUsage.name(), commands.name());
    }
}

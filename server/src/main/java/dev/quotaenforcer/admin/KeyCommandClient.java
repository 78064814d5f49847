package dev.quotaenforcer.admin;

import dev.quotaenforcer.event.CommandParser;
import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.topology.JsonSerde;
import dev.quotaenforcer.topology.Topics;
import java.util.Map;

/**
 * Publishes operators' admin commands (reset, grant, block, unblock) on the commands topic, keyed by
 * the API key so they land on its requests' partition. Each command is checked as the enforcer will
 * read it first, so a bad value is reported here instead of on the dead-letter topic.
 */
public final class KeyCommandClient {

    private final Map<String, Object> settings;
    private final Topics topics;
    private final JsonSerde<KeyCommand> json = new JsonSerde<>(KeyCommand.class);
    private final CommandParser parser = new CommandParser(Integer.MAX_VALUE);

    /** @param settings the enforcer's settings; the producer takes the part it understands */
    public KeyCommandClient(Map<String, Object> settings, Topics topics) {
        this.settings = Map.copyOf(settings);
        this.topics = topics;
    }

    /**
     * Publishes the command and waits until the cluster has it.
     *
     * @throws IllegalArgumentException naming the field and value the enforcer would reject
     */
    public void send(KeyCommand command) throws InterruptedException {
        byte[] value = json.serializer().serialize(topics.commands().name(), command);
        if (parser.parse(value) instanceof CommandParser.Parsed.Rejected rejected) {
            throw new IllegalArgumentException(rejected.reason());
        }
        RecordSender.send(settings, topics.commands().name(), command.apiKey(), value);
    }
}

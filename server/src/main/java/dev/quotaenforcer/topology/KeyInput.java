package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.RequestEvent;

/** What reaches a key's task: a request to decide or an admin command to apply. */
sealed interface KeyInput permits KeyInput.Request, KeyInput.Command {

    /** A request to decide. */
    record Request(RequestEvent request) implements KeyInput {
    }

    /** An admin command to apply. */
    record Command(KeyCommand command) implements KeyInput {
    }
}

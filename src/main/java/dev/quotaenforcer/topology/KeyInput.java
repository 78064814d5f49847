package dev.quotaenforcer.topology;

import dev.quotaenforcer.event.KeyCommand;
import dev.quotaenforcer.event.RequestEvent;

/** What reaches a key's task: a request to decide or an admin command to apply (exactly one is set). */
record KeyInput(RequestEvent request, KeyCommand command) {

    static KeyInput of(RequestEvent request) {
        return new KeyInput(request, null);
    }

    static KeyInput of(KeyCommand command) {
        return new KeyInput(null, command);
    }
}

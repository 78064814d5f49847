package dev.quotaenforcer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What `keys assign` says about a plan that is not in force. */
class KeysCommandTest {

    @Test
    void aPlanInForceMayBeAssigned() {
        assertEquals(Optional.empty(), KeysCommand.Assign.refusal("pro", List.of("free", "pro")));
    }

    @Test
    void anUnknownPlanIsRefusedNamingItThePlansInForceInOrderAndTheFlag() {
        assertEquals(Optional.of("plan \"nosuchplan\" is not in force; plans in force: free, pro. Use "
                + "--allow-unknown-plan to assign it anyway (its requests are denied until the plan exists)."),
                KeysCommand.Assign.refusal("nosuchplan", List.of("pro", "free")));
    }

    @Test
    void withNoPlanInForceTheRefusalSaysSo() {
        assertEquals(Optional.of("plan \"free\" is not in force; plans in force: none. Use "
                + "--allow-unknown-plan to assign it anyway (its requests are denied until the plan exists)."),
                KeysCommand.Assign.refusal("free", List.of()));
    }

    @Test
    void planIdsAreMatchedExactly() {
        assertTrue(KeysCommand.Assign.refusal("Pro", List.of("pro")).isPresent());
    }
}

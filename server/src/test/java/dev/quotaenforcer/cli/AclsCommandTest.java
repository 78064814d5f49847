package dev.quotaenforcer.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quotaenforcer.admin.AclMatrix;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@code acls print}: the matrix for the settings' names, and principals checked before anything is printed. */
class AclsCommandTest {

    private record Run(int status, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new QuotaEnforcerCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        int status = command.execute(args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void printListsEveryAclOfTheNamedPrincipalForTheTopicPrefixAndApplicationIdSet() {
        Run run = run("acls", "print", "--enforcer", "User:enf", "--set", "quota.topic.prefix=acme", "--set",
                "application.id=acme-enforcer");
        assertEquals(0, run.status(), run.err());
        List<String> lines = run.out().lines().toList();
        assertEquals(AclMatrix.of("acme", "acme-enforcer").entries(AclMatrix.Role.ENFORCER).size(), lines.size(), run.out());
        assertTrue(lines.stream().allMatch(line -> line.startsWith("User:enf ")), run.out());
        assertTrue(run.out().contains("acme.requests") && run.out().contains("acme-enforcer"), run.out());
    }

    @Test
    void printAsKafkaAclsCommandsUsesTheBootstrapServersGiven() {
        Run run = run("acls", "print", "--gateway", "User:gw", "--format", "KAFKA_ACLS", "--bootstrap-servers", "kafka-1:9093");
        assertEquals(0, run.status(), run.err());
        assertEquals("kafka-acls.sh --bootstrap-server kafka-1:9093 --add --allow-principal User:gw --operation Write --topic "
                + "quota.requests", run.out().lines().findFirst().orElseThrow());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gateway", "User:*", "User:", ":gateway", "User:gate way"})
    void printRefusesAPrincipalThatIsNotOneTypedName(String principal) {
        Run run = run("acls", "print", "--gateway", principal);
        assertEquals(2, run.status(), run.out());
        assertTrue(run.err().contains("--gateway " + principal + ": not a principal"), run.err());
        assertEquals("", run.out());
    }

    @Test
    void printRefusesToRunWithoutAPrincipal() {
        Run run = run("acls", "print");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("name at least one principal"), run.err());
    }
}

package dev.quotaenforcer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.quotaenforcer.admin.AclMatrix;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

/** The startup check's message: the principal as the settings tell it, and each missing ACL with its command. */
class AclCheckTest {

    @Test
    void principalIsTheSaslUserAndNothingElseOfTheJaasConfig() {
        String principal = AclCheck.principal(Map.of("sasl.jaas.config", new Password(
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"enf\" password=\"s3cret\";")));
        assertEquals("User:enf", principal);
    }

    @Test
    void principalWithoutSaslIsAPlaceholder() {
        assertEquals("User:<enforcer>", AclCheck.principal(Map.of("security.protocol", "SSL")));
    }

    @Test
    void messageNamesEachMissingAclWithItsKafkaAclsCommandAndTheAclsCreateCommand() {
        List<AclMatrix.Entry> missing = AclMatrix.of("quota", "quota-enforcer").entries(AclMatrix.Role.ENFORCER).stream()
                .filter(entry -> entry.name().equals("quota.decisions")).toList();
        assertEquals("""
                the enforcer's principal User:enf lacks 2 ACLs it needs; grant them as a cluster administrator:
                  WRITE on topic quota.decisions (output): kafka-acls.sh --bootstrap-server k:9093 --add --allow-principal \
                User:enf --operation Write --topic quota.decisions
                  DESCRIBE_CONFIGS on topic quota.decisions (output): kafka-acls.sh --bootstrap-server k:9093 --add \
                --allow-principal User:enf --operation DescribeConfigs --topic quota.decisions
                or grant all of the enforcer's with: quota-enforcer acls create --enforcer User:enf --bootstrap-servers k:9093""",
                AclCheck.message(missing, "User:enf", "k:9093"));
    }
}

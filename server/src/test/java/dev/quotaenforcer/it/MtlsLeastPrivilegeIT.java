package dev.quotaenforcer.it;

import java.nio.file.Path;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On a broker that authenticates clients by certificate (mTLS) with an authorizer: each principal does its job with its ACLs. */
class MtlsLeastPrivilegeIT {

    @Test
    void enforcerFromTheJarDecidesWithExactlyItsAclsAndLogsNoKeyOrKeyPassword(@TempDir Path dir) throws Exception {
        try (SecureBroker broker = SecureBroker.start(SecureBroker.Variant.MTLS, dir.resolve("broker"))) {
            String output = LeastPrivilegeRun.run(broker, dir, "mtlsRun");
            LeastPrivilegeRun.assertNoSecret(output, broker.secrets(LeastPrivilegeRun.ENFORCER), SslConfigs.SSL_KEYSTORE_KEY_CONFIG);
        }
    }
}

package dev.quotaenforcer.it;

import dev.quotaenforcer.broker.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * A real in-process KRaft broker (the same {@link EmbeddedKafka}) whose client listener is secured,
 * with SASL_SSL and SCRAM-SHA-512 or with mutual TLS, and Kafka's StandardAuthorizer refusing whatever
 * no ACL allows. Its certificate authority, certificates and users are made when it starts; the broker
 * itself ({@code User:broker}, by certificate on its internal and controller listeners) and
 * {@code User:admin} are super users, the others are allowed only what the test grants them.
 */
final class SecureBroker implements AutoCloseable {

    /** How the client listener authenticates. */
    enum Variant {
        /** SASL_SSL with SCRAM-SHA-512 users; the client trusts the broker by a PKCS#12 truststore with a password. */
        SCRAM,
        /** SSL with {@code ssl.client.auth=required}: the principal is the client certificate's common name. */
        MTLS
    }

    /** The super user tests set up topics and ACLs as. */
    static final String ADMIN = "admin";
    private static final String BROKER = "broker";
    private static final String SCRAM_MECHANISM = "SCRAM-SHA-512";
    private static final Duration ACL_WAIT = Duration.ofSeconds(30);

    private final Variant variant;
    private final String bootstrapServers;
    private final TestCertificates ca;
    private final Path truststore;
    private final String truststorePassword;
    private final Map<String, String> passwords;
    private final Map<String, Map<String, Object>> clients = new HashMap<>();
    private EmbeddedKafka kafka;

    private SecureBroker(Variant variant, String bootstrapServers, TestCertificates ca, Path truststore,
                         String truststorePassword, Map<String, String> passwords) {
        this.variant = variant;
        this.bootstrapServers = bootstrapServers;
        this.ca = ca;
        this.truststore = truststore;
        this.truststorePassword = truststorePassword;
        this.passwords = passwords;
    }

    /**
     * Starts a broker with its data, truststore and certificates under {@code dir}. With {@link Variant#SCRAM}
     * the {@code users} (and {@link #ADMIN}) get SCRAM credentials with random passwords at format time; with
     * {@link Variant#MTLS} any user name gets a certificate when it is first asked for.
     */
    static SecureBroker start(Variant variant, Path dir, String... users) {
        TestCertificates ca = TestCertificates.newAuthority();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path truststore = dir.resolve("truststore.p12");
        String truststorePassword = secret();
        ca.writeTruststore(truststore, truststorePassword);
        Map<String, String> passwords = new LinkedHashMap<>();
        passwords.put(ADMIN, secret());
        Arrays.stream(users).forEach(user -> passwords.put(user, secret()));

        int clientPort = EmbeddedKafka.freePort();
        int internalPort = EmbeddedKafka.freePort();
        int controllerPort = EmbeddedKafka.freePort();
        Path dataDir = dir.resolve("kafka");
        Properties props = EmbeddedKafka.serverProperties(dataDir, clientPort, controllerPort);
        props.put("listeners", "CLIENT://localhost:" + clientPort + ",INTERNAL://localhost:" + internalPort
                + ",CONTROLLER://localhost:" + controllerPort);
        props.put("advertised.listeners", "CLIENT://localhost:" + clientPort + ",INTERNAL://localhost:" + internalPort);
        props.put("listener.security.protocol.map", "CLIENT:" + (variant == Variant.SCRAM ? "SASL_SSL" : "SSL")
                + ",INTERNAL:SSL,CONTROLLER:SSL");
        props.put("inter.broker.listener.name", "INTERNAL");
        // Every TLS listener presents the broker's certificate and, unless overridden below, requires the peer's:
        // the broker authenticates to itself (internal and controller listeners) as User:broker.
        TestCertificates.Issued brokerCert = ca.issue(BROKER);
        String brokerKeyPassword = secret();
        props.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
        props.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, ca.chainPem(brokerCert));
        props.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, TestCertificates.encryptedKeyPem(brokerCert, brokerKeyPassword));
        props.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, brokerKeyPassword);
        props.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        props.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, ca.caPem());
        props.put("ssl.client.auth", "required");
        // A certificate's principal is its common name, as a SCRAM user's is its name.
        props.put("ssl.principal.mapping.rules", "RULE:^CN=(.*)$/$1/,DEFAULT");
        List<String> format = new ArrayList<>();
        if (variant == Variant.SCRAM) {
            props.put("sasl.enabled.mechanisms", SCRAM_MECHANISM);
            props.put("listener.name.client.ssl.client.auth", "none");
            props.put("listener.name.client." + SCRAM_MECHANISM.toLowerCase(Locale.ROOT) + ".sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            passwords.forEach((user, password) -> format.addAll(List.of("--add-scram",
                    SCRAM_MECHANISM + "=[name=" + user + ",password=" + password + "]")));
        }
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("allow.everyone.if.no.acl.found", "false");
        props.put("super.users", "User:" + BROKER + ";User:" + ADMIN);

        SecureBroker broker = new SecureBroker(variant, "localhost:" + clientPort, ca, truststore, truststorePassword, passwords);
        broker.kafka = EmbeddedKafka.start(dataDir, props, format, broker.client(ADMIN));
        return broker;
    }

    /** Bootstrap servers and every security setting a client of {@code user} needs: what a client config file holds. */
    synchronized Map<String, Object> client(String user) {
        return clients.computeIfAbsent(user, this::clientSettings);
    }

    /**
     * What must never appear in a log line of a client of {@code user}: its SCRAM password, the truststore's
     * password, its private key's password and the text of its private key.
     */
    List<String> secrets(String user) {
        List<String> secrets = new ArrayList<>();
        Map<String, Object> client = client(user);
        if (variant == Variant.SCRAM) {
            secrets.add(passwords.get(user));
            secrets.add(truststorePassword);
        } else {
            secrets.add(String.valueOf(client.get(SslConfigs.SSL_KEY_PASSWORD_CONFIG)));
            // Each line of the key's base64 body: a log line holding any of them holds key material.
            String key = String.valueOf(client.get(SslConfigs.SSL_KEYSTORE_KEY_CONFIG));
            key.lines().filter(line -> !line.startsWith("-----") && !line.isBlank()).forEach(secrets::add);
        }
        return secrets;
    }

    /** Creates the ACLs as the super user and waits until the broker's authorizer holds them all. */
    void grant(Collection<AclBinding> acls) throws InterruptedException {
        try (Admin admin = Admin.create(client(ADMIN))) {
            admin.createAcls(acls).all().get(ACL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("cannot create ACLs " + acls, e);
        }
        awaitHeld(acls);
    }

    /** Waits until the broker's authorizer holds all the ACLs (created by another client, e.g. the command line). */
    void awaitHeld(Collection<AclBinding> acls) throws InterruptedException {
        try (Admin admin = Admin.create(client(ADMIN))) {
            awaitAcls(admin, "ACLs held: " + acls, held -> held.containsAll(acls));
        }
    }

    /** Deletes the ACLs as the super user and waits until the broker's authorizer holds none of them. */
    void revoke(Collection<AclBinding> acls) throws InterruptedException {
        try (Admin admin = Admin.create(client(ADMIN))) {
            admin.deleteAcls(acls.stream().map(AclBinding::toFilter).toList()).all()
                    .get(ACL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            awaitAcls(admin, "revoked " + acls, held -> acls.stream().noneMatch(held::contains));
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("cannot delete ACLs " + acls, e);
        }
    }

    private static void awaitAcls(Admin admin, String what, Predicate<Set<AclBinding>> done)
            throws InterruptedException {
        TestCluster.awaitCondition(what, () -> {
            try {
                return done.test(new HashSet<>(admin.describeAcls(AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS)));
            } catch (ExecutionException | TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }, ACL_WAIT);
    }

    private Map<String, Object> clientSettings(String user) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        if (variant == Variant.SCRAM) {
            String password = passwords.get(user);
            if (password == null) {
                throw new IllegalArgumentException("no SCRAM user " + user + " on this broker; it has " + passwords.keySet());
            }
            settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
            settings.put(SaslConfigs.SASL_MECHANISM, SCRAM_MECHANISM);
            settings.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                    + "username=\"" + user + "\" password=\"" + password + "\";");
            settings.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PKCS12");
            settings.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore.toString());
            settings.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, truststorePassword);
        } else {
            TestCertificates.Issued cert = ca.issue(user);
            String keyPassword = secret();
            settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
            settings.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
            settings.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, ca.chainPem(cert));
            settings.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, TestCertificates.encryptedKeyPem(cert, keyPassword));
            settings.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, keyPassword);
            settings.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            settings.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, ca.caPem());
        }
        return Map.copyOf(settings);
    }

    private static String secret() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    public void close() {
        kafka.close();
    }
}

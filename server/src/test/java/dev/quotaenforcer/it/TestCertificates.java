package dev.quotaenforcer.it;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made for one test run, issuing certificates for {@code localhost} (the
 * broker's, and clients' whose common name is their principal), so no key material is ever committed.
 */
final class TestCertificates {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Duration VALIDITY = Duration.ofDays(1);

    /** A key and its certificate, issued by this authority. */
    record Issued(KeyPair keys, X509Certificate certificate) {
    }

    private final Issued ca;

    private TestCertificates(Issued ca) {
        this.ca = ca;
    }

    /** A new authority with a fresh key. */
    static TestCertificates newAuthority() {
        KeyPair keys = keyPair();
        X500Name name = new X500Name("CN=quota-enforcer test CA");
        JcaX509v3CertificateBuilder builder = builder(name, name, keys);
        try {
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new TestCertificates(new Issued(keys, sign(builder, keys)));
    }

    /**
     * A certificate for {@code CN=<commonName>}, valid for host {@code localhost} and 127.0.0.1 and for
     * both ends of a TLS connection (the broker's serves its listeners and connects to its controller).
     */
    Issued issue(String commonName) {
        KeyPair keys = keyPair();
        JcaX509v3CertificateBuilder builder = builder(new X500Name("CN=quota-enforcer test CA"),
                new X500Name("CN=" + commonName), keys);
        try {
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Issued(keys, sign(builder, ca.keys()));
    }

    /** The authority's certificate, PEM: what a truststore holds. */
    String caPem() {
        return pem(ca.certificate());
    }

    /** The certificate followed by the authority's, PEM: a keystore's certificate chain. */
    String chainPem(Issued issued) {
        return pem(issued.certificate()) + pem(ca.certificate());
    }

    /** The private key as PKCS#8 PEM, encrypted with {@code password} (a scheme Kafka's PEM keystore reads). */
    static String encryptedKeyPem(Issued issued, String password) {
        try {
            JceOpenSSLPKCS8EncryptorBuilder encryptor = new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.PBE_SHA1_3DES);
            encryptor.setPassword(password.toCharArray());
            encryptor.setRandom(RANDOM);
            return pem(new JcaPKCS8Generator(issued.keys().getPrivate(), encryptor.build()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes a PKCS#12 truststore holding the authority's certificate, protected by {@code password}. */
    void writeTruststore(Path file, String password) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry("ca", ca.certificate());
            try (OutputStream out = Files.newOutputStream(file)) {
                store.store(out, password.toCharArray());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        // Back-dated a little: the broker's clock and this one are the same, but certificate checks round to seconds.
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, RANDOM), Date.from(now.minus(Duration.ofMinutes(5))),
                Date.from(now.plus(VALIDITY)), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) {
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a test certificate", e);
        }
    }

    private static String pem(X509Certificate certificate) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(certificate);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    private static String pem(JcaPKCS8Generator key) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }
}

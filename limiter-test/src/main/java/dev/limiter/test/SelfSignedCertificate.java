package dev.limiter.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A key pair and a self-signed certificate for {@code 127.0.0.1} and {@code localhost}, made with the
 * JDK's own {@code keytool} and written as PEM files, so that a TLS {@code redis-server} can serve with
 * them and clients can trust that one certificate. Nothing outside the JDK is needed.
 */
final class SelfSignedCertificate {

    static final String CERTIFICATE_FILE = "redis-cert.pem";
    static final String KEY_FILE = "redis-key.pem";
    private static final String ALIAS = "redis";

    private final Path certificate;
    private final Path privateKey;
    private final SSLSocketFactory trusting;

    private SelfSignedCertificate(Path certificate, Path privateKey, SSLSocketFactory trusting) {
        this.certificate = certificate;
        this.privateKey = privateKey;
        this.trusting = trusting;
    }

    /** Generates a new key and certificate into {@code dir}, valid for two days. */
    static SelfSignedCertificate create(Path dir) {
        Path keyStore = dir.resolve("redis.p12");
        char[] storePassword = HexFormat.of().formatHex(new SecureRandom().generateSeed(12)).toCharArray();
        keytool(List.of("-genkeypair", "-alias", ALIAS, "-keyalg", "EC", "-keysize", "256", "-sigalg", "SHA256withECDSA",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", keyStore.toString(),
                "-storepass", new String(storePassword), "-keypass", new String(storePassword)));
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                store.load(in, storePassword);
            }
            Certificate cert = store.getCertificate(ALIAS);
            PrivateKey key = (PrivateKey) store.getKey(ALIAS, storePassword);
            Path certificate = dir.resolve(CERTIFICATE_FILE);
            Path privateKey = dir.resolve(KEY_FILE);
            Files.writeString(certificate, pem("CERTIFICATE", cert.getEncoded()));
            Files.writeString(privateKey, pem("PRIVATE KEY", key.getEncoded())); // PKCS#8, which OpenSSL reads
            Files.delete(keyStore);
            return new SelfSignedCertificate(certificate, privateKey, trusting(cert));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the TLS certificate for redis-server into " + dir, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the key pair keytool made in " + keyStore, e);
        }
    }

    /** The certificate as PEM: the server's certificate, and the only one clients need to trust. */
    Path certificate() {
        return certificate;
    }

    /** The unencrypted private key as PKCS#8 PEM. */
    Path privateKey() {
        return privateKey;
    }

    /** Sockets that trust this certificate and no other. */
    SSLSocketFactory trustingSocketFactory() {
        return trusting;
    }

    private static SSLSocketFactory trusting(Certificate cert) throws GeneralSecurityException, IOException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry(ALIAS, cert);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        return context.getSocketFactory();
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    /** Runs the keytool of the running JDK, which every JDK ships. */
    private static void keytool(List<String> arguments) {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", windows ? "keytool.exe" : "keytool");
        List<String> command = new ArrayList<>(List.of(keytool.toString()));
        command.addAll(arguments);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(keytool + " did not finish within 30 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(keytool + " failed with exit code " + process.exitValue() + ": " + output.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + keytool, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
    }
}

package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Private redis-server processes from {@link TestRedis#server()}: persistent, TLS, with an ACL user. */
@RedisTest
@Timeout(60)
class TestRedisServerTests {

    @BeforeEach
    void needsRedisServer() {
        TestRedis.serverUnavailable().ifPresent(Assumptions::abort);
    }

    @Test
    void aPersistentServerComesBackFromAKillWithItsKeys() throws IOException {
        try (TestRedis redis = TestRedis.server().persistent().start()) {
            assertThat(redis.source()).isEqualTo(TestRedis.Source.REDIS_SERVER);
            assertThat(RedisCli.call(redis, "SET", "kept", "yes")).isEqualTo("OK");
            redis.kill();
            assertThat(RedisCli.refuses(redis.host(), redis.port())).isTrue();
            redis.restart();
            assertThat(RedisCli.call(redis, "GET", "kept")).isEqualTo("yes");
        }
    }

    @Test
    void aServerThatIsNotPersistentComesBackEmpty() throws IOException {
        try (TestRedis redis = TestRedis.server().start()) {
            assertThat(RedisCli.call(redis, "SET", "kept", "no")).isEqualTo("OK");
            redis.kill();
            redis.restart();
            assertThat(RedisCli.call(redis, "GET", "kept")).isNull();
        }
    }

    @Test
    void aTlsServerAnswersOverTlsOnlyToClientsTrustingItsCertificate() throws Exception {
        try (TestRedis redis = TestRedis.server().tls().start()) {
            assertThat(redis.url()).startsWith("rediss://127.0.0.1:");
            assertThat(redis.tlsCertificate()).hasValueSatisfying((pem) -> assertThat(pem).isRegularFile());
            Resp.Access tls = new Resp.Access(trusting(redis), null, null);
            assertThat(Resp.ping(tls, redis.host(), redis.port(), 2_000)).isTrue();
            assertThat(Resp.ping(redis.host(), redis.port(), 1_000)).as("plain text").isFalse();
            redis.restart();
            assertThat(Resp.ping(tls, redis.host(), redis.port(), 2_000)).isTrue();
        }
    }

    @Test
    void aServerWithAUserAnswersOnlyThatUserAndDeniesItDangerousCommands() throws IOException {
        try (TestRedis redis = TestRedis.server().user("limiter", "s3cret").start()) {
            assertThat(redis.username()).hasValue("limiter");
            assertThat(redis.password()).hasValue("s3cret");
            assertThat(redis.url()).isEqualTo("redis://limiter:s3cret@127.0.0.1:" + redis.port());
            Resp.Access user = new Resp.Access(null, "limiter", "s3cret");
            assertThat(Resp.ping(redis.host(), redis.port(), 1_000)).as("without logging in").isFalse();
            assertThat(Resp.ping(new Resp.Access(null, "limiter", "wrong"), redis.host(), redis.port(), 1_000)).isFalse();
            assertThat(Resp.ping(user, redis.host(), redis.port(), 1_000)).isTrue();
            assertThat(Resp.call(user, redis.host(), redis.port(), 1_000, "EVAL", "return redis.call('TIME')[1] ~= nil", "0"))
                .isEqualTo(1L);
            assertThat(Resp.call(user, redis.host(), redis.port(), 1_000, "CONFIG", "GET", "dir"))
                .isInstanceOfSatisfying(Resp.ErrorReply.class, (error) -> assertThat(error.message()).startsWith("NOPERM"));
        }
    }

    /** Sockets that trust the PEM file the server published, read as a client would read it. */
    private static SSLSocketFactory trusting(TestRedis redis) throws IOException, GeneralSecurityException {
        Certificate certificate;
        try (InputStream pem = Files.newInputStream(redis.tlsCertificate().orElseThrow())) {
            certificate = CertificateFactory.getInstance("X.509").generateCertificate(pem);
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("redis", certificate);
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        return context.getSocketFactory();
    }
}

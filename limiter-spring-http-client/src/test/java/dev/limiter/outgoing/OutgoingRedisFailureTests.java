package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.limiter.LimiterClock;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.RedisControl;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

/**
 * Outgoing calls while the limiters' Redis is out, on a {@code redis-server} of the test's own that it freezes
 * and resumes, or kills and restarts (keeping its data, as an append-only file does): each route's limiter's
 * failure policy decides its calls ({@code allow}: they go out though Redis holds their key; {@code deny}:
 * rejected, not as held, without reaching the upstream); a hold an upstream asks for meanwhile is not
 * stored; once Redis is back, calls read the hold stored before the outage again, and new holds are stored.
 * <p>
 * Frozen, a command sent would wait in the connection and run when Redis resumes, so there the test also
 * fails if a hold were written during the outage; killed, it checks that the holds come back from a new
 * connection. Time is virtual and stands still through the outage, so the hold stored before has 30 s left after it.
 */
@Timeout(120)
class OutgoingRedisFailureTests {

    enum Outage {
        FROZEN, KILLED
    }

    private static final String PREFIX = "outgoing-failure";

    private final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START);

    private final ScriptedUpstream upstream = new ScriptedUpstream();

    private TestRedis redis;

    @BeforeEach
    void start() {
        assumeTrue(TestRedis.serverUnavailable().isEmpty(), () -> "no redis-server to stop and restart: " + TestRedis.serverUnavailable());
        redis = TestRedis.server().persistent().start();
    }

    @AfterEach
    void stop() {
        upstream.close();
        if (redis != null) {
            redis.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Outage.class)
    void theFailurePolicyDecidesWhileRedisIsOutHoldsAreNeitherReadNorStoredAndTheyAreAgainOnceItIsBack(Outage outage) {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class,
                    LimiterHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
            .withBean(LimiterClock.class, () -> clock)
            .withPropertyValues("spring.data.redis.url=" + redis.url(), "limiter.key-prefix=" + PREFIX, "limiter.redis.timeout=100ms",
                    "limiter.redis.probe-interval=100ms", "limiter.redis.outage-after=300ms",
                    "limiter.limiters.open.algorithm=fixed-window", "limiter.limiters.open.limit=1000", "limiter.limiters.open.window=1h",
                    "limiter.limiters.open.on-redis-failure=allow",
                    "limiter.limiters.closed.algorithm=fixed-window", "limiter.limiters.closed.limit=1000",
                    "limiter.limiters.closed.window=1h", "limiter.limiters.closed.on-redis-failure=deny",
                    "limiter.outgoing[0].url=http://127.0.0.1/open/**", "limiter.outgoing[0].limiter=open",
                    "limiter.outgoing[0].key='company'",
                    "limiter.outgoing[1].url=http://127.0.0.1/closed/**", "limiter.outgoing[1].limiter=closed",
                    "limiter.outgoing[1].key='company'")
            .run((context) -> {
                RestClient client = context.getBean(RestClient.Builder.class).build();
                RedisRateLimiterFactory factory = context.getBean(RedisRateLimiterFactory.class);
                String open = upstream.url() + "/open/orders";
                String closed = upstream.url() + "/closed/orders";

                // Redis decides; the upstream's 429 holds key company of limiter open for 30 s, in Redis.
                assertThat(status(client, open)).isEqualTo(200);
                assertThat(status(client, closed)).isEqualTo(200);
                upstream.answer("429 Retry-After: 30");
                assertThat(status(client, open)).isEqualTo(429);
                upstream.answer("200");
                assertHeld(client, open, Duration.ofSeconds(30));
                assertThat(holds()).containsExactly(PREFIX + ":{open:company}:companion:hold");

                if (outage == Outage.FROZEN) {
                    redis.pause();
                }
                else {
                    redis.kill();
                }
                awaitOut(factory, client, open);

                // While Redis is out, each limiter's policy decides: the hold in Redis is not read.
                int sent = upstream.paths().size();
                for (int i = 0; i < 3; i++) {
                    assertThat(status(client, open)).as("a call of limiter open, whose policy is allow").isEqualTo(200);
                    assertThatThrownBy(() -> status(client, closed)).as("a call of limiter closed, whose policy is deny")
                        .isInstanceOfSatisfying(OutgoingCallRejectedException.class, (rejected) -> {
                            assertThat(rejected.isHeld()).isFalse();
                            assertThat(rejected.getLimiterName()).isEqualTo("closed");
                        });
                }
                // An upstream's 429 meanwhile reaches the caller; the hold it asks for is not stored.
                upstream.answer("429 Retry-After: 60");
                assertThat(status(client, open)).isEqualTo(429);
                upstream.answer("200");
                assertThat(upstream.paths()).as("calls that reached the upstream during the outage").hasSize(sent + 4);
                assertThat(upstream.paths().subList(sent, sent + 4)).containsOnly("/open/orders");

                if (outage == Outage.FROZEN) {
                    redis.resume();
                }
                else {
                    redis.restart();
                }
                awaitBack(factory);

                // Back on Redis: the hold stored before the outage is read again (virtual time stood still: 30 s left)...
                assertHeld(client, open, Duration.ofSeconds(30));
                assertThat(status(client, closed)).isEqualTo(200);
                // ... and the 60 s hold asked during the outage was never stored: once the first ends, calls go out.
                clock.advance(Duration.ofSeconds(30));
                assertThat(status(client, open)).isEqualTo(200);
                // New holds are stored and read again.
                upstream.answer("429 Retry-After: 10");
                assertThat(status(client, open)).isEqualTo(429);
                upstream.answer("200");
                assertHeld(client, open, Duration.ofSeconds(10));
            });
    }

    private static int status(RestClient client, String url) {
        return client.get().uri(url).exchange((request, response) -> response.getStatusCode().value());
    }

    private static void assertHeld(RestClient client, String url, Duration left) {
        assertThatThrownBy(() -> status(client, url)).isInstanceOfSatisfying(OutgoingCallRejectedException.class, (rejected) -> {
            assertThat(rejected.isHeld()).as("held").isTrue();
            assertThat(rejected.getDecision().retryAfter()).isEqualTo(left);
        });
    }

    /** The hold keys in the test's Redis. */
    @SuppressWarnings("unchecked")
    private List<Object> holds() {
        try (RedisControl control = RedisControl.of(redis)) {
            return (List<Object>) control.ok("KEYS", PREFIX + ":*:companion:hold");
        }
    }

    /**
     * Waits (at most 10 s) until the limiters count Redis as out, calling meanwhile: a frozen Redis is out once
     * calls have failed for outage-after; a killed one as soon as the connection cannot be made again.
     */
    private static void awaitOut(RedisRateLimiterFactory factory, RestClient client, String url) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (factory.isRedisAvailable() && System.nanoTime() < deadline) {
            try {
                status(client, url);
            }
            catch (OutgoingCallRejectedException ex) {
                // Decided while Redis still counted as in use.
            }
            Thread.sleep(20);
        }
        assertThat(factory.isRedisAvailable()).as("Redis counted as out").isFalse();
    }

    /** Waits (at most 10 s) until the probe finds Redis again. */
    private static void awaitBack(RedisRateLimiterFactory factory) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!factory.isRedisAvailable() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(factory.isRedisAvailable()).as("Redis used again").isTrue();
    }
}

package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.TreeMap;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.internal.HoldingLimiter;
import dev.limiter.outgoing.internal.OutgoingCalls;
import dev.limiter.outgoing.internal.OutgoingObserver;
import dev.limiter.outgoing.internal.OutgoingRoute;
import dev.limiter.outgoing.internal.RedisHolds;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * An outgoing call costs Redis one round trip: the limiter's script, which reads the upstream's hold
 * itself. Counted by Redis (its slow log, told to log every command) on a Redis server of this test's own, so that
 * nothing else's commands count: N calls through RestClient and WebClient are exactly N script calls and
 * no other command; while another instance's hold lasts, each call is one script call too, held without
 * reaching the upstream or touching the limiter's state, and a call that may wait waits the hold out and
 * is decided once more.
 */
class OneRoundTripTests {

    private static final int CALLS = 20;

    /**
     * The limit of the calls that must not wait: so slow that the key's state, whose TTL Redis counts in real
     * time, outlives the test while the virtual clock stands still.
     */
    private static final LimitSpec SLOW = LimitSpec.of(1000, Duration.ofDays(1));

    private final VirtualClock clock = new VirtualClock(VirtualClock.EPOCH_ALIGNED_START);

    private final List<AutoCloseable> closing = new ArrayList<>();

    private StringRedisTemplate redis;

    /** A connection of the test's own, to read Redis' log of commands. */
    private RedisCommands<String, String> log;

    private Upstream upstream;

    private RedisRateLimiterFactory other;

    private RestClient restClient;

    private WebClient webClient;

    @BeforeEach
    void start() {
        assumeTrue(TestRedis.serverUnavailable().isEmpty(), () -> "no redis-server to count commands on: " + TestRedis.serverUnavailable());
        TestRedis server = TestRedis.server().start();
        closing.add(server);
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(server.host(), server.port()));
        connections.afterPropertiesSet();
        connections.start();
        closing.add(connections::destroy);
        redis = new StringRedisTemplate(connections);
        RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
        closing.add(client::shutdown);
        StatefulRedisConnection<String, String> connection = client.connect();
        closing.add(connection::close);
        log = connection.sync();
        upstream = Upstream.start(clock, VirtualClock.EPOCH_ALIGNED_START, 1_000_000L, (window) -> Long.MAX_VALUE);
        closing.add(upstream);
        RedisRateLimiterFactory factory = instance();
        other = instance();
        RateLimiterRegistry registry = new RateLimiterRegistry(factory);
        registry.register("partner", RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET).limit(SLOW).build());
        registry.register("patient", RateLimiterConfig.builder(Algorithm.GCRA).limit(LimitSpec.of(1000, Duration.ofMinutes(1)))
            .maxWait(Duration.ofMinutes(1)).build());
        OutgoingCalls calls = new OutgoingCalls(List.of(
                OutgoingRoute.of("limiter.outgoing[0]", null, "http://127.0.0.1/v1/patient/**", "patient", "'company'"),
                OutgoingRoute.of("limiter.outgoing[1]", "127.0.0.1", null, "partner", "'company'")),
                registry, new RedisHolds(factory), OutgoingObserver.NONE);
        restClient = RestClient.builder().requestInterceptor(new LimiterClientHttpRequestInterceptor(calls, clock::advance)).build();
        webClient = WebClient.builder().filter(new LimiterExchangeFilterFunction(calls, (duration) -> {
            clock.advance(duration);
            return Mono.just(0L);
        })).build();
    }

    /** An instance of the application on the test's Redis, its scripts loaded, its heartbeat out of the way of the count. */
    private RedisRateLimiterFactory instance() {
        RedisRateLimiterFactory factory = RedisRateLimiterFactory.builder(redis).keyPrefix("rt").clock(clock)
            .heartbeatInterval(Duration.ofHours(1)).build();
        factory.warmUp();
        closing.add(factory::close);
        return factory;
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    @Test
    void eachCallIsOneScriptCallAndNothingElse() {
        resetStats();
        for (int i = 0; i < CALLS; i++) {
            assertThat(restClient.get().uri(upstream.url()).retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
            assertThat(webClient.get().uri(upstream.url()).retrieve().toBodilessEntity().block().getStatusCode().value()).isEqualTo(200);
        }
        assertThat(commands()).as("commands Redis ran for %d outgoing calls", 2 * CALLS).isEqualTo(Map.of("evalsha", 2L * CALLS));
        assertThat(upstream.arrivals()).hasSize(2 * CALLS);
    }

    @Test
    void whileAnotherInstancesHoldLastsEachCallIsOneScriptCallHeldWithoutTakingAPermit() {
        restClient.get().uri(upstream.url()).retrieve().toBodilessEntity();
        String state = "rt:{partner:company}:tb2:";
        byte[] before = dumpStartingWith(state);
        HoldingLimiter.of(other.create("partner", RateLimiterConfig.builder(Algorithm.TOKEN_BUCKET).limit(SLOW).build()), other)
            .hold("company", Duration.ofSeconds(30));
        resetStats();
        for (int i = 0; i < CALLS; i++) {
            assertThatThrownBy(() -> restClient.get().uri(upstream.url()).retrieve().toBodilessEntity())
                .satisfies((ex) -> assertHeld(ex, Duration.ofSeconds(30)));
            assertThatThrownBy(() -> webClient.get().uri(upstream.url()).retrieve().toBodilessEntity().block())
                .satisfies((ex) -> assertHeld(ex, Duration.ofSeconds(30)));
        }
        assertThat(commands()).as("commands Redis ran for %d held calls", 2 * CALLS).isEqualTo(Map.of("evalsha", 2L * CALLS));
        assertThat(upstream.arrivals()).as("calls that reached the upstream").hasSize(1);
        assertThat(dumpStartingWith(state)).as("the limiter's state while held").isEqualTo(before);
    }

    @Test
    void aCallThatMayWaitWaitsTheHoldOutAndIsDecidedOnceMore() {
        String url = upstream.url().replace("/v1/orders", "/v1/patient/orders");
        HoldingLimiter.of(other.create("patient", RateLimiterConfig.builder(Algorithm.GCRA).limit(LimitSpec.of(1000, Duration.ofMinutes(1)))
            .maxWait(Duration.ofMinutes(1)).build()), other).hold("company", Duration.ofSeconds(10));
        resetStats();
        long start = clock.nowMicros();
        assertThat(restClient.get().uri(url).retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
        assertThat(clock.nowMicros() - start).as("virtual microseconds waited").isEqualTo(10_000_000L);
        assertThat(commands()).isEqualTo(Map.of("evalsha", 2L));
        assertThat(upstream.arrivals()).singleElement().satisfies((arrival) -> assertThat(arrival.atMicros()).isEqualTo(start + 10_000_000L));
    }

    private static void assertHeld(Throwable ex, Duration hold) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutgoingCallRejectedException rejected) {
                assertThat(rejected.isHeld()).isTrue();
                assertThat(rejected.getDecision().retryAfter()).isEqualTo(hold);
                return;
            }
        }
        throw new AssertionError("not an outgoing call's rejection", ex);
    }

    /** Starts counting: Redis logs every command from now on (a slow log of every command, of this test's Redis alone). */
    private void resetStats() {
        log.configSet("slowlog-max-len", "100000");
        log.configSet("slowlog-log-slower-than", "0");
        log.slowlogReset();
    }

    /**
     * The commands clients sent Redis since {@link #resetStats()}, with their counts, but for this test's own
     * SLOWLOG and CONFIG: the slow log names the client of each, where the commands a script runs have none
     * ({@code ?:0}), so they are not counted apart from their script.
     */
    private Map<String, Long> commands() {
        Map<String, Long> commands = new TreeMap<>();
        for (Object entry : log.slowlogGet(-1)) {
            List<?> fields = (List<?>) entry;
            String command = text(((List<?>) fields.get(3)).get(0)).toLowerCase(Locale.ROOT);
            String client = text(fields.get(4));
            if (client.startsWith("?") || command.equals("slowlog") || command.equals("config")) {
                continue;
            }
            commands.merge(command, 1L, Long::sum);
        }
        return commands;
    }

    private static String text(Object value) {
        return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    /** DUMP of the one key starting with {@code start} (the limiter's state, whose tail ends in its fingerprint). */
    private byte[] dumpStartingWith(String start) {
        List<String> keys = new ArrayList<>(redis.keys(start + "*"));
        assertThat(keys).hasSize(1);
        return redis.execute((RedisCallback<byte[]>) (connection) -> connection.keyCommands().dump(keys.get(0).getBytes(StandardCharsets.UTF_8)));
    }
}

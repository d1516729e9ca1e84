package dev.limiter.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.Permit;
import dev.limiter.test.TestRedis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A concurrency limit costs Redis one round trip to take a slot and one to release it, from the first call
 * of a started instance on: counted by Redis itself (its slow log, told to log every command) on a Redis
 * server of this test's own, so that no other test's commands count. Each is one EVALSHA of its script,
 * and nothing else.
 */
class ConcurrencyRoundTripTests {

    private final List<AutoCloseable> closing = new ArrayList<>();

    /** A connection of the test's own, to read Redis' log of commands. */
    private RedisCommands<String, String> log;

    private RedisRateLimiterFactory factory;

    @BeforeEach
    void start() {
        assumeTrue(TestRedis.serverUnavailable().isEmpty(), () -> "no redis-server to count commands on: " + TestRedis.serverUnavailable());
        TestRedis server = TestRedis.server().start();
        closing.add(server);
        LettuceConnectionFactory connections = TestRedisSupport.connectionFactory(server, LettuceClientConfiguration.defaultConfiguration());
        closing.add(connections::destroy);
        RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
        closing.add(client::shutdown);
        StatefulRedisConnection<String, String> connection = client.connect();
        closing.add(connection::close);
        log = connection.sync();
        // Started as an application starts it; its heartbeat out of the way of the count.
        factory = RedisRateLimiterFactory.builder(TestRedisSupport.template(connections)).keyPrefix("rt")
            .heartbeatInterval(Duration.ofHours(1)).build();
        factory.warmUp();
        closing.add(factory::close);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    @Test
    void takingIsOneScriptCallAndReleasingIsOne() {
        // The default lease (30 s): no renewal runs during the test.
        ConcurrencyLimiter limiter = factory.createConcurrencyLimiter("calls", ConcurrencyLimiterConfig.of(2));
        closing.add(limiter::close);
        startCounting();
        Permit permit = limiter.tryAcquire("k").orElseThrow();
        assertThat(commands()).as("commands Redis ran to take a slot").containsExactly(evalsha(RedisConcurrencyLimiter.TAKE));
        startCounting();
        permit.close();
        assertThat(commands()).as("commands Redis ran to release it").containsExactly(evalsha(RedisConcurrencyLimiter.RELEASE));
    }

    @Test
    void aCallThatMayWaitTakesAFreeSlotInOneScriptCallToo() {
        ConcurrencyLimiter limiter = factory.createConcurrencyLimiter("waiting",
                ConcurrencyLimiterConfig.of(1).withMaxWait(Duration.ofSeconds(5)));
        closing.add(limiter::close);
        startCounting();
        Permit permit = limiter.acquire("k");
        assertThat(commands()).as("commands Redis ran to take a free slot").containsExactly(evalsha(RedisConcurrencyLimiter.TAKE));
        startCounting();
        permit.close();
        assertThat(commands()).as("commands Redis ran to release it").containsExactly(evalsha(RedisConcurrencyLimiter.RELEASE));
    }

    private static String evalsha(LuaScript script) {
        return "evalsha " + script.getSha1();
    }

    /** Redis logs every command from now on (a slow log of every command, of this test's Redis alone). */
    private void startCounting() {
        log.configSet("slowlog-max-len", "100000");
        log.configSet("slowlog-log-slower-than", "0");
        log.slowlogReset();
    }

    /**
     * The commands clients sent Redis since {@link #startCounting()}, oldest first, each its name and, for an
     * EVALSHA, the script's SHA-1; but for this test's own SLOWLOG and CONFIG, and the commands a script
     * runs (the slow log names no client for them, {@code ?:0}).
     */
    private List<String> commands() {
        List<String> commands = new ArrayList<>();
        for (Object entry : log.slowlogGet(-1)) {
            List<?> fields = (List<?>) entry;
            List<?> words = (List<?>) fields.get(3);
            String command = text(words.get(0)).toLowerCase(Locale.ROOT);
            if (text(fields.get(4)).startsWith("?") || command.equals("slowlog") || command.equals("config")) {
                continue;
            }
            commands.add(command.equals("evalsha") ? command + " " + text(words.get(1)) : command);
        }
        // The slow log lists the newest first.
        Collections.reverse(commands);
        return commands;
    }

    private static String text(Object value) {
        return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }
}

package dev.limiter.autoconfigure;

import java.time.Duration;

import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decisions time out after {@code limiter.redis.timeout}; what the limiters' connection sends at
 * start-up or to probe may take as long as connecting, so a cold start is never taken for an outage.
 */
class CommandTimeoutsTests {

    private final LimiterRedisConnection.CommandTimeouts timeouts = new LimiterRedisConnection.CommandTimeouts(Duration.ofMillis(500),
            Duration.ofSeconds(1));

    @Test
    void scriptsTakeTheDecisionTimeout() {
        assertThat(timeouts.getTimeout(new Command<>(CommandType.EVALSHA, null))).isEqualTo(500);
        assertThat(timeouts.getTimeout(new Command<>(CommandType.EVAL, null))).isEqualTo(500);
    }

    @Test
    void startUpCommandsTakeTheConnectTimeout() {
        assertThat(timeouts.getTimeout(new Command<>(CommandType.SCRIPT, null))).isEqualTo(1000);
        assertThat(timeouts.getTimeout(new Command<>(CommandType.PING, null))).isEqualTo(1000);
    }

    @Test
    void aDecisionTimeoutLongerThanTheConnectTimeoutBoundsEverything() {
        LimiterRedisConnection.CommandTimeouts slow = new LimiterRedisConnection.CommandTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(1));
        assertThat(slow.getTimeout(new Command<>(CommandType.SCRIPT, null))).isEqualTo(5000);
    }
}

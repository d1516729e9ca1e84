package dev.limiter.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The orders limit retuned on the command line, as docs/sample.md shows, without recompiling. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        args = { "--limiter.limiters.orders.algorithm=fixed-window", "--limiter.limiters.orders.limit=50",
                "--limiter.limiters.orders.window=1h" })
@RedisTest
@Import(SampleTestSupport.VirtualTime.class)
class CommandLineOverrideTests {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SampleTestSupport.useTestRedis(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    VirtualClock clock;

    @Test
    void fiftyCallsPerHourWindow() throws Exception {
        for (int i = 1; i <= 50; i++) {
            assertThat(SampleTestSupport.get(port, "/api/orders", "frank").statusCode()).as("call %d", i).isEqualTo(200);
        }
        var rejected = SampleTestSupport.get(port, "/api/orders", "frank");
        assertThat(rejected.statusCode()).isEqualTo(429);
        // Windows are aligned to whole hours: the clock is 20:34.567890 into one, so the next starts
        // in 39:25.432110, which Retry-After rounds up to 2366 s.
        assertThat(rejected.headers().firstValue("Retry-After")).hasValue("2366");
        clock.advance(Duration.ofMinutes(39).plusSeconds(25).plusNanos(432_109_000));
        assertThat(SampleTestSupport.get(port, "/api/orders", "frank").statusCode()).isEqualTo(429);
        clock.advance(Duration.ofNanos(1_000));
        assertThat(SampleTestSupport.get(port, "/api/orders", "frank").statusCode()).isEqualTo(200);
    }
}

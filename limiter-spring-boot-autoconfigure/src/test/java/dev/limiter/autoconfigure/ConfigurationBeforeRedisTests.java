package dev.limiter.autoconfigure;

import static dev.limiter.autoconfigure.LimiterConfigurationFailureTests.failsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

import dev.limiter.Algorithm;
import dev.limiter.redis.RedisRateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.spring.RateLimited;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A configuration mistake stops startup before the limiters open any connection to Redis: its message
 * is all that is printed, not buried under a failed connection and its threads. The "Redis" here is a
 * socket that accepts connections and never answers, so that every connection attempt is seen.
 */
class ConfigurationBeforeRedisTests {

    private ServerSocket silentRedis;

    private ApplicationContextRunner contextRunner;

    @BeforeEach
    void listen() throws IOException {
        this.silentRedis = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + this.silentRedis.getLocalPort(),
                    "limiter.redis.timeout=100ms", "limiter.redis.connect-timeout=100ms");
    }

    @AfterEach
    void close() throws IOException {
        this.silentRedis.close();
    }

    @Test
    void aZeroLimitInPropertiesStopsStartupWithoutConnecting() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=0", "limiter.limiters.orders.window=1s")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.limit")));
        assertNoConnection();
    }

    @Test
    void aBurstOnAFixedWindowInPropertiesStopsStartupWithoutConnecting() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class)
            .withPropertyValues("limiter.limiters.orders.algorithm=fixed-window", "limiter.limiters.orders.burst=10")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.orders.burst")));
        assertNoConnection();
    }

    @Test
    void anInvalidAnnotationStopsStartupWithoutConnecting() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class, NegativeLimitConfiguration.class)
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("@RateLimited(limit) on NegativeLimitService.call()")));
        assertNoConnection();
    }

    @Test
    void aConfiguredLimiterThatNothingCompletesStopsStartupWithoutConnecting() {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).withPropertyValues("limiter.limiters.ordrs.limit=5")
            .run(failsWith((ex, analysis) -> assertThat(ex.getWhere()).isEqualTo("limiter.limiters.ordrs.window")));
        assertNoConnection();
    }

    /**
     * In a whole application on Tomcat, the report of the mistake is the only thing printed: no trace of
     * a connection, of the scripts or of threads left running.
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void theApplicationPrintsTheMistakeAlone(CapturedOutput output) {
        SpringApplication application = new SpringApplication(WebApplication.class);
        application.setBannerMode(Banner.Mode.OFF);
        assertThatExceptionOfType(RuntimeException.class)
            .isThrownBy(() -> application.run("--server.port=0", "--spring.data.redis.host=127.0.0.1",
                    "--spring.data.redis.port=" + this.silentRedis.getLocalPort(), "--limiter.redis.connect-timeout=100ms",
                    "--limiter.redis.timeout=100ms", "--limiter.limiters.orders.limit=0"))
            .havingRootCause()
            .isInstanceOf(LimiterConfigurationException.class);
        assertNoConnection();
        assertThat(output.getAll()).contains("APPLICATION FAILED TO START", "limiter.limiters.orders.limit", "value: 0")
            .doesNotContain("Redis at", "instances.lua", "appears to have started a thread", "lettuce-", "limiter-redis-");
    }

    /** Without a mistake the limiters do connect at startup: the socket sees them, so the tests above could fail. */
    @Test
    void aValidConfigurationConnectsAtStartup() throws IOException {
        this.contextRunner.withUserConfiguration(OrdersConfiguration.class).run((context) -> {
            assertThat(context).hasNotFailed().hasSingleBean(RedisRateLimiterFactory.class);
            this.silentRedis.setSoTimeout(5_000);
            try (Socket connection = this.silentRedis.accept()) {
                assertThat(connection.isConnected()).isTrue();
            }
        });
    }

    private void assertNoConnection() {
        assertThatExceptionOfType(SocketTimeoutException.class).as("a connection to Redis").isThrownBy(() -> {
            this.silentRedis.setSoTimeout(300);
            this.silentRedis.accept().close();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
            WebMvcAutoConfiguration.class, DataRedisAutoConfiguration.class, LimiterAutoConfiguration.class })
    @Import(OrdersConfiguration.class)
    static class WebApplication {

    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfiguration {

        @Bean
        OrdersService ordersService() {
            return new OrdersService();
        }

    }

    static class OrdersService {

        @RateLimited(name = "orders", algorithm = Algorithm.TOKEN_BUCKET, limit = 5, window = "1s")
        public void place() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class NegativeLimitConfiguration {

        @Bean
        NegativeLimitService negativeLimitService() {
            return new NegativeLimitService();
        }

    }

    static class NegativeLimitService {

        @RateLimited(name = "refunds", limit = -1, window = "1s")
        public void call() {
        }

    }
}

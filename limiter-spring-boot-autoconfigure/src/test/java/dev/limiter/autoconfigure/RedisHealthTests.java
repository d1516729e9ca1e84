package dev.limiter.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;

import dev.limiter.autoconfigure.actuate.LimiterActuatorAutoConfiguration;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisReactiveHealthContributorAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Spring Boot's own {@code redis} health indicator, which the starter brings with Spring Data Redis, is
 * off unless the application configures a Redis ({@code spring.data.redis.*}) or says otherwise
 * ({@code management.health.redis.enabled}): on the memory backend the application is UP, not DOWN
 * because nothing answers on localhost:6379. No test here talks to a Redis: the one configured is a port
 * where nothing listens.
 */
class RedisHealthTests {

    private static int deadPort;

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withInitializer((context) -> postProcessor().postProcessEnvironment(context.getEnvironment(), new SpringApplication()))
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DataRedisHealthContributorAutoConfiguration.class,
                DataRedisReactiveHealthContributorAutoConfiguration.class, HealthContributorAutoConfiguration.class,
                LimiterAutoConfiguration.class, LimiterActuatorAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory");

    @BeforeAll
    static void findAPortWhereNothingListens() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = socket.getLocalPort();
        }
    }

    @Test
    void withoutARedisConfiguredBootsRedisIndicatorIsOff() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("redisHealthContributor");
            assertThat(context.getEnvironment().getProperty("management.health.redis.enabled")).isEqualTo("false");
        });
    }

    @Test
    void aRedisTheApplicationConfiguresKeepsBootsIndicator() {
        this.contextRunner.withPropertyValues("spring.data.redis.port=" + deadPort)
            .run((context) -> assertThat(context).hasBean("redisHealthContributor"));
    }

    @Test
    void anExplicitSettingWinsEitherWay() {
        this.contextRunner.withPropertyValues("management.health.redis.enabled=true")
            .run((context) -> assertThat(context).hasBean("redisHealthContributor"));
        this.contextRunner.withPropertyValues("spring.data.redis.port=" + deadPort, "management.health.redis.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean("redisHealthContributor"));
    }

    @Test
    void environmentVariablesCountAsSettingsToo() {
        StandardEnvironment configured = environment(Map.of("SPRING_DATA_REDIS_HOST", "redis.internal"));
        postProcessor().postProcessEnvironment(configured, new SpringApplication());
        assertThat(configured.getProperty("management.health.redis.enabled")).isNull();

        StandardEnvironment explicit = environment(Map.of("MANAGEMENT_HEALTH_REDIS_ENABLED", "true"));
        postProcessor().postProcessEnvironment(explicit, new SpringApplication());
        assertThat(explicit.getProperty("management.health.redis.enabled")).isEqualTo("true");
        assertThat(explicit.getPropertySources().contains("limiterRedisHealthDefault")).isFalse();

        StandardEnvironment neither = environment(Map.of("SPRING_PROFILES_ACTIVE", "prod"));
        postProcessor().postProcessEnvironment(neither, new SpringApplication());
        assertThat(neither.getProperty("management.health.redis.enabled")).isEqualTo("false");
    }

    /** An environment whose variables are {@code variables} only. */
    private static StandardEnvironment environment(Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
        return environment;
    }

    /** A whole application on the memory backend with the actuator: UP, and no redis component. */
    @Test
    void theApplicationOnTheMemoryBackendIsUp() {
        try (ConfigurableApplicationContext context = application("--limiter.backend=memory")) {
            CompositeHealthDescriptor health = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getComponents()).as("the components shown").containsKey("ping").doesNotContainKey("redis")
                .doesNotContainKey("limiters");
        }
    }

    /** The indicator Boot keeps for a Redis the application configures reports it down as Boot always has. */
    @Test
    void theApplicationWithARedisOfItsOwnKeepsBootsVerdictOnIt() {
        try (ConfigurableApplicationContext context = application("--limiter.backend=memory", "--spring.data.redis.port=" + deadPort)) {
            CompositeHealthDescriptor health = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class).health();
            assertThat(health.getComponents()).containsKey("redis");
            assertThat(health.getComponents().get("redis").getStatus()).isEqualTo(Status.DOWN);
        }
    }

    /**
     * While the limiters' Redis fails, their component is DEGRADED, a status Boot's aggregation leaves out
     * unless management.endpoint.health.status.order names it: the application stays UP.
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void theApplicationStaysUpWhileTheLimitersRedisFails(CapturedOutput output) {
        try (ConfigurableApplicationContext context = application("--spring.data.redis.port=" + deadPort,
                "--management.health.redis.enabled=false", "--management.endpoint.health.show-components=always")) {
            // The warning says which Redis, and how to run without one on purpose.
            assertThat(output).contains("WARN", "Redis at localhost:" + deadPort + " is unavailable (at start-up",
                    "Connection refused", "To run without Redis on purpose, set limiter.backend=memory");
            CompositeHealthDescriptor health = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class).health();
            assertThat(health.getComponents()).containsOnlyKeys("limiters", "ping");
            assertThat(health.getComponents().get("limiters").getStatus().getCode()).isEqualTo("DEGRADED");
            assertThat(health.getStatus()).isEqualTo(Status.UP);
        }
    }

    private static ConfigurableApplicationContext application(String... args) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setBannerMode(Banner.Mode.OFF);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run(args);
    }

    /** Spring Boot finds it through META-INF/spring.factories, as the tests of whole applications show. */
    private static RedisHealthEnvironmentPostProcessor postProcessor() {
        return new RedisHealthEnvironmentPostProcessor();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ EndpointAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
            HealthContributorAutoConfiguration.class, HealthEndpointAutoConfiguration.class, DataRedisAutoConfiguration.class,
            DataRedisHealthContributorAutoConfiguration.class, DataRedisReactiveHealthContributorAutoConfiguration.class,
            LimiterAutoConfiguration.class, LimiterActuatorAutoConfiguration.class })
    static class Application {

    }
}

package dev.limiter.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Tests of binding {@code limiter.*} properties and of the configuration metadata generated for IDEs. */
class LimiterPropertiesTests {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class));

    @Test
    void limiterDefinedInPropertiesIsRegistered() {
        this.contextRunner
            .withPropertyValues("limiter.limiters.orders.algorithm=token-bucket", "limiter.limiters.orders.limit=5",
                    "limiter.limiters.orders.window=10s", "limiter.limiters.orders.burst=8")
            .run((context) -> {
                RateLimiter orders = context.getBean(RateLimiterRegistry.class).get("orders");
                assertThat(orders.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
                assertThat(orders.limits()).containsExactly(new LimitSpec(5, Duration.ofSeconds(10), 8));
            });
    }

    @Test
    void fixedWindowLimiterDefinedInProperties() {
        this.contextRunner
            .withPropertyValues("limiter.limiters.orders.algorithm=fixed-window", "limiter.limiters.orders.limit=5",
                    "limiter.limiters.orders.window=10s")
            .run((context) -> {
                RateLimiter orders = context.getBean(RateLimiterRegistry.class).get("orders");
                assertThat(orders.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
                assertThat(orders.limits()).containsExactly(LimitSpec.of(5, Duration.ofSeconds(10)));
            });
    }

    @Test
    void algorithmWithoutConfigurationIsTokenBucketWithBurstEqualToLimit() {
        this.contextRunner.withPropertyValues("limiter.limiters.orders.limit=5", "limiter.limiters.orders.window=500ms")
            .run((context) -> {
                RateLimiter orders = context.getBean(RateLimiterRegistry.class).get("orders");
                assertThat(orders.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
                assertThat(orders.limits()).containsExactly(LimitSpec.of(5, Duration.ofMillis(500)));
            });
    }

    @Test
    void algorithmNamesAreRelaxed() {
        this.contextRunner
            .withPropertyValues("limiter.limiters.upper.algorithm=FIXED_WINDOW", "limiter.limiters.upper.limit=1",
                    "limiter.limiters.upper.window=1s", "limiter.limiters.kebab.algorithm=fixed-window",
                    "limiter.limiters.kebab.limit=1", "limiter.limiters.kebab.window=1s",
                    "limiter.limiters.lower.algorithm=token_bucket", "limiter.limiters.lower.limit=1",
                    "limiter.limiters.lower.window=1s")
            .run((context) -> {
                RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
                assertThat(registry.get("upper").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
                assertThat(registry.get("kebab").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
                assertThat(registry.get("lower").algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
            });
    }

    @Test
    void propertyNamesAreRelaxed() {
        this.contextRunner.withPropertyValues("limiter.keyPrefix=app", "limiter.memory.max_keys=10", "limiter.backend=MEMORY")
            .run((context) -> {
                LimiterProperties properties = context.getBean(LimiterProperties.class);
                assertThat(properties.getKeyPrefix()).isEqualTo("app");
                assertThat(properties.getMemory().getMaxKeys()).isEqualTo(10);
                assertThat(properties.getBackend()).isEqualTo(LimiterProperties.Backend.MEMORY);
            });
    }

    @Test
    void unknownAlgorithmFailsBindingNamingTheProperty() {
        this.contextRunner
            .withPropertyValues("limiter.limiters.x.algorithm=foo", "limiter.limiters.x.limit=1", "limiter.limiters.x.window=1s")
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context).getFailure().hasStackTraceContaining("limiter.limiters.x.algorithm")
                    .hasStackTraceContaining("foo");
            });
    }

    @Test
    void metadataDescribesTheProperties() throws IOException {
        String metadata = ownMetadata();
        for (String name : List.of("limiter.enabled", "limiter.backend", "limiter.key-prefix", "limiter.limiters",
                "limiter.memory.max-keys")) {
            List<String> descriptions = JsonPath.read(metadata, "$.properties[?(@.name == '" + name + "')].description");
            assertThat(descriptions).as(name).singleElement().asString().isNotBlank();
        }
        List<Object> enabledDefault = JsonPath.read(metadata, "$.properties[?(@.name == 'limiter.enabled')].defaultValue");
        assertThat(enabledDefault).containsExactly(true);
        List<String> enabledDescription = JsonPath.read(metadata, "$.properties[?(@.name == 'limiter.enabled')].description");
        assertThat(enabledDescription.get(0)).startsWith("Whether");
    }

    /** This module's metadata file, generated by spring-boot-configuration-processor into target/classes. */
    private static String ownMetadata() throws IOException {
        for (URL url : Collections.list(LimiterPropertiesTests.class.getClassLoader()
            .getResources("META-INF/spring-configuration-metadata.json"))) {
            // Other modules' metadata come from jars; ours is a file in target/classes.
            if (url.getProtocol().equals("file")) {
                try (InputStream in = url.openStream()) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        }
        throw new AssertionError("META-INF/spring-configuration-metadata.json is missing from target/classes: "
                + "is spring-boot-configuration-processor running?");
    }

}

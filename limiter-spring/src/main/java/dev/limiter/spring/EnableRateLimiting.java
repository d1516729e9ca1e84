package dev.limiter.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Turns on {@link RateLimited} methods in a Spring application without Spring Boot. The application
 * declares a {@link dev.limiter.RateLimiterFactory} bean (in memory, or {@code RedisRateLimiterFactory}
 * of limiter-redis), or a {@link dev.limiter.RateLimiterRegistry} bean; each annotation's own values
 * (algorithm, limit, window, burst, limits, subWindows, maxWait) define its limiter, checked when its
 * bean is created.
 *
 * <pre>{@code
 * @Configuration
 * @EnableRateLimiting
 * class LimiterConfig {
 *
 *     @Bean
 *     RateLimiterFactory rateLimiterFactory() {
 *         return new InMemoryRateLimiterFactory();
 *     }
 * }
 * }</pre>
 *
 * Optional beans it uses: a {@link dev.limiter.DecisionListener} hearing calls that could not be
 * decided, and a {@link dev.limiter.spring.web.ClientIpResolver} for {@code #clientIp} behind
 * proxies. With Spring Boot, use Limiter's starter instead: it configures all of this from
 * {@code limiter.*} properties, which may override the annotation's values.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(RateLimitingConfiguration.class)
public @interface EnableRateLimiting {

    /** What becomes of a call whose key expression gives null or empty text. */
    MissingKeyPolicy onMissingKey() default MissingKeyPolicy.REJECT;

    /** Whether responses of limited calls carry the {@code RateLimit-Policy} and {@code RateLimit} header fields. */
    boolean headerFields() default true;
}

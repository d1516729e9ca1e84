package dev.limiter.gateway.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import dev.limiter.LimitSpec;
import dev.limiter.gateway.LimiterGatewayProperties;
import dev.limiter.spring.LimiterConfigurationException;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** How the X-RateLimit-* fields report a limit's rate, and which settings name them. */
class XRateLimitHeadersTests {

    @Test
    void aRateOfAtLeastOnePermitASecondIsReportedAsItIsRoundedDown() {
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(10, Duration.ofSeconds(1)))).isEqualTo(new XRateLimitHeaders.Rate(10, 1));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(1, Duration.ofSeconds(1)))).isEqualTo(new XRateLimitHeaders.Rate(1, 1));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(100, Duration.ofMinutes(1)))).isEqualTo(new XRateLimitHeaders.Rate(1, 1));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(500, Duration.ofMillis(100)))).isEqualTo(new XRateLimitHeaders.Rate(5000, 1));
    }

    /** RedisRateLimiter's replenish rate is a whole number of at least 1: slower limits are written in scaled tokens. */
    @Test
    void aRateBelowOnePermitASecondIsScaledToTheSmallestWholeReplenishRate() {
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(1, Duration.ofMinutes(1)))).isEqualTo(new XRateLimitHeaders.Rate(1, 60));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(5, Duration.ofMinutes(1)))).isEqualTo(new XRateLimitHeaders.Rate(1, 12));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(3, Duration.ofSeconds(10)))).isEqualTo(new XRateLimitHeaders.Rate(3, 10));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(1, Duration.ofMillis(1500)))).isEqualTo(new XRateLimitHeaders.Rate(2, 3));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(1, Duration.ofDays(1)))).isEqualTo(new XRateLimitHeaders.Rate(1, 86_400));
        assertThat(XRateLimitHeaders.Rate.of(LimitSpec.of(1, Duration.ofMinutes(1))).scaled(4)).isEqualTo(240);
    }

    @Test
    void numbersTooLargeToScaleStopAtTheLargestLong() {
        XRateLimitHeaders.Rate rate = XRateLimitHeaders.Rate.of(LimitSpec.of(1, Duration.ofDays(366)));
        assertThat(rate.replenishRate()).isEqualTo(1);
        assertThat(rate.scale()).isEqualTo(366 * 86_400L);
        assertThat(rate.scaled(Long.MAX_VALUE / 1000)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void withoutSettingsTheFieldsAreRedisRateLimitersOwn() {
        assertThat(configured(new LimiterGatewayProperties(), Map.of())).hasToString(
                "XRateLimitHeaders[X-RateLimit-Remaining, X-RateLimit-Replenish-Rate, X-RateLimit-Burst-Capacity, X-RateLimit-Requested-Tokens]");
    }

    @Test
    void theGatewaysRedisRateLimiterSettingsNameAndTurnOffTheFields() {
        String prefix = "spring.cloud.gateway.server.webflux.redis-rate-limiter.";
        assertThat(configured(new LimiterGatewayProperties(), Map.of(prefix + "remaining-header", "X-Left", prefix + "replenish-rate-header",
                "X-Rate", prefix + "burst-capacity-header", "X-Burst", prefix + "requested-tokens-header", "X-Cost")))
            .hasToString("XRateLimitHeaders[X-Left, X-Rate, X-Burst, X-Cost]");
        assertThat(configured(new LimiterGatewayProperties(), Map.of(prefix + "include-headers", "false"))).isNull();
    }

    @Test
    void limitersOwnSettingsComeFirst() {
        String prefix = "spring.cloud.gateway.server.webflux.redis-rate-limiter.";
        LimiterGatewayProperties own = new LimiterGatewayProperties();
        own.setRedisRateLimiterHeaders(true);
        own.setRemainingHeader("X-Mine");
        assertThat(configured(own, Map.of(prefix + "include-headers", "false", prefix + "remaining-header", "X-Theirs",
                prefix + "burst-capacity-header", "X-Burst")))
            .hasToString("XRateLimitHeaders[X-Mine, X-RateLimit-Replenish-Rate, X-Burst, X-RateLimit-Requested-Tokens]");
        own.setRedisRateLimiterHeaders(false);
        assertThat(configured(own, Map.of(prefix + "include-headers", "true"))).isNull();
    }

    @Test
    void anEmptyNameIsRefusedNamingItsProperty() {
        LimiterGatewayProperties own = new LimiterGatewayProperties();
        own.setReplenishRateHeader(" ");
        assertThatThrownBy(() -> configured(own, Map.of())).isInstanceOf(LimiterConfigurationException.class)
            .hasMessageContaining("limiter.gateway.replenish-rate-header")
            .hasMessageContaining("X-RateLimit-Replenish-Rate");
        assertThatThrownBy(() -> configured(new LimiterGatewayProperties(),
                Map.of("spring.cloud.gateway.server.webflux.redis-rate-limiter.remaining-header", "")))
            .isInstanceOf(LimiterConfigurationException.class)
            .hasMessageContaining("spring.cloud.gateway.server.webflux.redis-rate-limiter.remaining-header");
    }

    private static XRateLimitHeaders configured(LimiterGatewayProperties properties, Map<String, String> environment) {
        return XRateLimitHeaders.configured(properties, new Binder(new MapConfigurationPropertySource(environment)));
    }
}

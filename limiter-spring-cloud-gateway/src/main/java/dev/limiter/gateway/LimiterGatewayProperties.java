package dev.limiter.gateway;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of Limiter in Spring Cloud Gateway, under {@code limiter.gateway}. Each setting of the
 * {@code X-RateLimit-*} fields left unset follows the same setting of the gateway's
 * {@code RedisRateLimiter} ({@code spring.cloud.gateway.server.webflux.redis-rate-limiter.*}), so that a
 * gateway moving to Limiter keeps the fields its clients read.
 */
@ConfigurationProperties("limiter.gateway")
public class LimiterGatewayProperties {

    /**
     * Whether gateway answers carry, beside the IETF RateLimit fields, the X-RateLimit-Remaining,
     * X-RateLimit-Replenish-Rate, X-RateLimit-Burst-Capacity and X-RateLimit-Requested-Tokens fields that
     * Spring Cloud Gateway's RedisRateLimiter sends, for clients that read them. Unset:
     * spring.cloud.gateway.server.webflux.redis-rate-limiter.include-headers, true without it.
     */
    private @Nullable Boolean redisRateLimiterHeaders;

    /**
     * Name of the header field with the permits left. Unset:
     * spring.cloud.gateway.server.webflux.redis-rate-limiter.remaining-header, X-RateLimit-Remaining without it.
     */
    private @Nullable String remainingHeader;

    /**
     * Name of the header field with the permits granted per second. Unset:
     * spring.cloud.gateway.server.webflux.redis-rate-limiter.replenish-rate-header, X-RateLimit-Replenish-Rate
     * without it.
     */
    private @Nullable String replenishRateHeader;

    /**
     * Name of the header field with the most permits granted at once. Unset:
     * spring.cloud.gateway.server.webflux.redis-rate-limiter.burst-capacity-header, X-RateLimit-Burst-Capacity
     * without it.
     */
    private @Nullable String burstCapacityHeader;

    /**
     * Name of the header field with the permits the request asked for. Unset:
     * spring.cloud.gateway.server.webflux.redis-rate-limiter.requested-tokens-header,
     * X-RateLimit-Requested-Tokens without it.
     */
    private @Nullable String requestedTokensHeader;

    public @Nullable Boolean getRedisRateLimiterHeaders() {
        return redisRateLimiterHeaders;
    }

    public void setRedisRateLimiterHeaders(@Nullable Boolean redisRateLimiterHeaders) {
        this.redisRateLimiterHeaders = redisRateLimiterHeaders;
    }

    public @Nullable String getRemainingHeader() {
        return remainingHeader;
    }

    public void setRemainingHeader(@Nullable String remainingHeader) {
        this.remainingHeader = remainingHeader;
    }

    public @Nullable String getReplenishRateHeader() {
        return replenishRateHeader;
    }

    public void setReplenishRateHeader(@Nullable String replenishRateHeader) {
        this.replenishRateHeader = replenishRateHeader;
    }

    public @Nullable String getBurstCapacityHeader() {
        return burstCapacityHeader;
    }

    public void setBurstCapacityHeader(@Nullable String burstCapacityHeader) {
        this.burstCapacityHeader = burstCapacityHeader;
    }

    public @Nullable String getRequestedTokensHeader() {
        return requestedTokensHeader;
    }

    public void setRequestedTokensHeader(@Nullable String requestedTokensHeader) {
        this.requestedTokensHeader = requestedTokensHeader;
    }
}

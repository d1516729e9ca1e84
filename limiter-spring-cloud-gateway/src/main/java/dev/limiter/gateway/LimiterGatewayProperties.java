package dev.limiter.gateway;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of Limiter in Spring Cloud Gateway, under {@code limiter.gateway}. */
@ConfigurationProperties("limiter.gateway")
public class LimiterGatewayProperties {

    /**
     * Whether gateway answers carry, beside the IETF RateLimit fields, the X-RateLimit-Remaining,
     * X-RateLimit-Replenish-Rate, X-RateLimit-Burst-Capacity and X-RateLimit-Requested-Tokens fields that
     * Spring Cloud Gateway's RedisRateLimiter sends, for clients that read them.
     */
    private boolean redisRateLimiterHeaders = true;

    public boolean isRedisRateLimiterHeaders() {
        return redisRateLimiterHeaders;
    }

    public void setRedisRateLimiterHeaders(boolean redisRateLimiterHeaders) {
        this.redisRateLimiterHeaders = redisRateLimiterHeaders;
    }
}

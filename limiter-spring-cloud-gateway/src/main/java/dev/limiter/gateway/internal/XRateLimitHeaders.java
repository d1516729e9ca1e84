package dev.limiter.gateway.internal;

import java.time.Duration;
import java.util.function.BiConsumer;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.gateway.LimiterGatewayProperties;
import dev.limiter.spring.LimiterConfigurationException;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * The {@code X-RateLimit-*} header fields that Spring Cloud Gateway's {@code RedisRateLimiter} sends and
 * its clients read, worked out from a Limiter decision as {@code RedisRateLimiter} would send them for the
 * same token bucket: the remaining permits, the permits the reported limit grants per second (its
 * replenish rate), its capacity (a bucket's burst, a window's limit) and the permits the request asked
 * for. {@code RedisRateLimiter}'s replenish rate is a whole number of at least 1, so a limit granting less
 * than one permit a second is reported scaled, as a team writes it for {@code RedisRateLimiter}: one a
 * minute is a replenish rate of 1 with a burst capacity of 60 and 60 requested tokens, and the remaining
 * permits scaled alike. Named as configured ({@link #configured}).
 */
public final class XRateLimitHeaders {

    /** Permits left after the request. */
    public static final String REMAINING = "X-RateLimit-Remaining";

    /** Permits the reported limit grants per second. */
    public static final String REPLENISH_RATE = "X-RateLimit-Replenish-Rate";

    /** Most permits the reported limit grants at once. */
    public static final String BURST_CAPACITY = "X-RateLimit-Burst-Capacity";

    /** Permits the request asked for. */
    public static final String REQUESTED_TOKENS = "X-RateLimit-Requested-Tokens";

    /** Where RedisRateLimiter's own settings are (GatewayProperties.PREFIX + ".redis-rate-limiter"). */
    static final String GATEWAY_PREFIX = "spring.cloud.gateway.server.webflux.redis-rate-limiter";

    private static final long MICROS_PER_SECOND = 1_000_000L;

    private final String remaining;

    private final String replenishRate;

    private final String burstCapacity;

    private final String requestedTokens;

    /** The fields with these names. */
    public XRateLimitHeaders(String remaining, String replenishRate, String burstCapacity, String requestedTokens) {
        this.remaining = remaining;
        this.replenishRate = replenishRate;
        this.burstCapacity = burstCapacity;
        this.requestedTokens = requestedTokens;
    }

    /**
     * The fields as configured: each setting of {@code limiter.gateway} that is set, else the same setting
     * of the gateway's {@code RedisRateLimiter} ({@code spring.cloud.gateway.server.webflux.redis-rate-limiter.*}),
     * else {@code RedisRateLimiter}'s default; null when they are turned off.
     *
     * @throws LimiterConfigurationException for a header name that is empty
     */
    public static @Nullable XRateLimitHeaders configured(LimiterGatewayProperties properties, Binder binder) {
        Boolean include = properties.getRedisRateLimiterHeaders();
        if (include == null) {
            include = binder.bind(GATEWAY_PREFIX + ".include-headers", Boolean.class).orElse(true);
        }
        if (!include) {
            return null;
        }
        return new XRateLimitHeaders(name(properties.getRemainingHeader(), "remaining-header", REMAINING, binder),
                name(properties.getReplenishRateHeader(), "replenish-rate-header", REPLENISH_RATE, binder),
                name(properties.getBurstCapacityHeader(), "burst-capacity-header", BURST_CAPACITY, binder),
                name(properties.getRequestedTokensHeader(), "requested-tokens-header", REQUESTED_TOKENS, binder));
    }

    private static String name(@Nullable String own, String setting, String fallback, Binder binder) {
        String property = "limiter.gateway." + setting;
        String name = own;
        if (name == null) {
            property = GATEWAY_PREFIX + "." + setting;
            name = binder.bind(property, String.class).orElse(fallback);
        }
        if (name.isBlank()) {
            throw new LimiterConfigurationException(property, "\"" + name + "\"", "An X-RateLimit-* header field needs a name",
                    "Name the field, such as " + fallback + ", or remove the property for that default");
        }
        return name.trim();
    }

    /**
     * Gives {@code header} each field after {@code decision}; nothing for a decision no limit made (an
     * unlimited key or plan), which has no numbers to report.
     */
    public void put(RateLimiter limiter, long cost, Decision decision, BiConsumer<String, String> header) {
        if (decision.limit() <= 0) {
            return;
        }
        Rate rate = Rate.of(reported(limiter.config(), decision.limit()));
        header.accept(remaining, Long.toString(rate.scaled(decision.remaining())));
        header.accept(replenishRate, Long.toString(rate.replenishRate()));
        header.accept(burstCapacity, Long.toString(rate.scaled(decision.limit())));
        header.accept(requestedTokens, Long.toString(rate.scaled(cost)));
    }

    /** The limit whose capacity the decision reports; the first, should none match (a retune in between). */
    private static LimitSpec reported(RateLimiterConfig config, long capacity) {
        boolean bucket = config.algorithm().isBucket();
        for (LimitSpec limit : config.limits()) {
            if ((bucket ? limit.burst() : limit.limit()) == capacity) {
                return limit;
            }
        }
        return config.limits().get(0);
    }

    @Override
    public String toString() {
        return "XRateLimitHeaders[" + remaining + ", " + replenishRate + ", " + burstCapacity + ", " + requestedTokens + "]";
    }

    /**
     * A limit's rate as RedisRateLimiter's whole replenish rate, and the factor its permits are reported in.
     *
     * @param replenishRate permits (scaled) granted per second, at least 1
     * @param scale tokens reported per permit: 1 at a rate of at least one permit a second, else the
     *     smallest factor that makes the rate a whole number
     */
    record Rate(long replenishRate, long scale) {

        /**
         * At a rate of at least one permit a second, that rate rounded down and permits reported as they
         * are; below, the rate limit/window as a fraction p/q in lowest terms: q tokens a permit, p a second.
         */
        static Rate of(LimitSpec limit) {
            long micros = Math.max(1, micros(limit.window()));
            long permitMicros = saturatedMultiply(limit.limit(), MICROS_PER_SECOND);
            if (permitMicros >= micros) {
                return new Rate(permitMicros / micros, 1);
            }
            long divisor = gcd(permitMicros, micros);
            return new Rate(permitMicros / divisor, micros / divisor);
        }

        /** {@code permits} in tokens of this rate. */
        long scaled(long permits) {
            return saturatedMultiply(permits, scale);
        }

        private static long gcd(long a, long b) {
            while (b != 0) {
                long r = a % b;
                a = b;
                b = r;
            }
            return a;
        }

        private static long micros(Duration window) {
            try {
                return Math.addExact(Math.multiplyExact(window.getSeconds(), MICROS_PER_SECOND), window.getNano() / 1_000L);
            }
            catch (ArithmeticException ex) {
                return Long.MAX_VALUE;
            }
        }

        /** {@code a} times {@code b}, both at least 0, or Long.MAX_VALUE beyond it. */
        private static long saturatedMultiply(long a, long b) {
            try {
                return Math.multiplyExact(a, b);
            }
            catch (ArithmeticException ex) {
                return Long.MAX_VALUE;
            }
        }
    }
}

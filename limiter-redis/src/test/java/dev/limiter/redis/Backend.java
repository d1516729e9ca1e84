package dev.limiter.redis;

import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterFactory;
import dev.limiter.memory.InMemoryRateLimiterFactory;

/** Where a limiter keeps its state; behaviour tests run once per backend and must see the same thing. */
enum Backend {

    /** Shared test Redis, time passed from the virtual clock to the scripts. */
    REDIS {
        @Override
        RateLimiterFactory factory(LimiterClock clock, String keyPrefix) {
            return RedisRateLimiterFactory.builder(TestRedisSupport.shared()).keyPrefix(keyPrefix).clock(clock).build();
        }
    },

    /** In-process twins on the same virtual clock. */
    MEMORY {
        @Override
        RateLimiterFactory factory(LimiterClock clock, String keyPrefix) {
            return InMemoryRateLimiterFactory.builder().clock(clock).maxKeys(10_000).build();
        }
    };

    abstract RateLimiterFactory factory(LimiterClock clock, String keyPrefix);
}

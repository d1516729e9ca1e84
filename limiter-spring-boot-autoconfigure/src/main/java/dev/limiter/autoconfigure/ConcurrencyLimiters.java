package dev.limiter.autoconfigure;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.limiter.ConcurrencyLimiter;
import dev.limiter.ConcurrencyLimiterConfig;
import dev.limiter.RateLimiterFactory;
import dev.limiter.spring.LimiterConfigurationException;

import org.springframework.beans.factory.DisposableBean;

/**
 * The concurrency limiters {@code limiter.concurrency-limits} configures, created at startup on the
 * application's {@link RateLimiterFactory}: what {@code @RateLimited} methods naming them hold a slot of,
 * and what code may take permits from directly ({@link #get}).
 */
public final class ConcurrencyLimiters implements DisposableBean {

    private final Map<String, ConcurrencyLimiter> limiters;

    ConcurrencyLimiters(LimiterProperties properties, RateLimiterFactory factory) {
        Map<String, ConcurrencyLimiter> created = new LinkedHashMap<>();
        properties.getConcurrencyLimits().forEach((name, configured) -> {
            String where = "limiter.concurrency-limits." + name;
            if (properties.getLimiters().containsKey(name)) {
                throw new LimiterConfigurationException(where, name, "limiter.limiters." + name + " configures a rate limiter of the same "
                        + "name, and @RateLimited(name = \"" + name + "\") could mean either", "Rename one of them");
            }
            if (configured == null || configured.getLimit() == null) {
                throw new LimiterConfigurationException(where + ".limit", null, "A concurrency limit needs its limit of calls in flight",
                        "Set " + where + ".limit, such as 10");
            }
            ConcurrencyLimiterConfig config = config(where, configured);
            try {
                created.put(name, factory.createConcurrencyLimiter(name, config));
            }
            catch (UnsupportedOperationException ex) {
                throw new LimiterConfigurationException(where, name, "The limiters' RateLimiterFactory has no concurrency limits: "
                        + ex.getMessage(), "Use Limiter's Redis or memory backend, or override RateLimiterFactory.createConcurrencyLimiter");
            }
            catch (IllegalArgumentException ex) {
                throw new LimiterConfigurationException(where, name, String.valueOf(ex.getMessage()), "Rename the concurrency limit");
            }
        });
        this.limiters = Collections.unmodifiableMap(created);
    }

    private static ConcurrencyLimiterConfig config(String where, LimiterProperties.ConcurrencyLimit configured) {
        Long written = configured.getLimit();
        if (written == null) {
            throw new LimiterConfigurationException(where + ".limit", "(not set)", "A concurrency limit needs its limit: how many calls may run at once per key",
                    "Set " + where + ".limit, such as limit: 10");
        }
        long limit = written;
        try {
            ConcurrencyLimiterConfig.of(limit);
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where + ".limit", limit, String.valueOf(ex.getMessage()), "Set a limit of at least 1");
        }
        try {
            ConcurrencyLimiterConfig.of(limit).withLease(configured.getLease());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where + ".lease", configured.getLease(), String.valueOf(ex.getMessage()),
                    "Set a lease such as 30s");
        }
        try {
            return new ConcurrencyLimiterConfig(limit, configured.getLease(), configured.getMaxWait(), configured.getOnRedisFailure());
        }
        catch (IllegalArgumentException ex) {
            throw new LimiterConfigurationException(where + ".max-wait", configured.getMaxWait(), String.valueOf(ex.getMessage()),
                    "Set a max-wait between 0 and 1d");
        }
    }

    /** The concurrency limiter of that name, if configured. */
    public Optional<ConcurrencyLimiter> find(String name) {
        return Optional.ofNullable(limiters.get(name));
    }

    /**
     * The concurrency limiter of that name.
     *
     * @throws IllegalArgumentException naming the configured ones when there is none of that name
     */
    public ConcurrencyLimiter get(String name) {
        ConcurrencyLimiter limiter = limiters.get(name);
        if (limiter == null) {
            throw new IllegalArgumentException("No concurrency limit named '" + name + "' under limiter.concurrency-limits; configured: "
                    + limiters.keySet());
        }
        return limiter;
    }

    /** Every configured concurrency limiter. */
    public Collection<ConcurrencyLimiter> limiters() {
        return limiters.values();
    }

    /** Stops renewing; slots still held come back when their calls end or their lease runs out. */
    @Override
    public void destroy() {
        limiters.values().forEach(ConcurrencyLimiter::close);
    }
}

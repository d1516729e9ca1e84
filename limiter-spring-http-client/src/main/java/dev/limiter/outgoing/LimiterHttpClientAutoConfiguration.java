package dev.limiter.outgoing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterSites;
import dev.limiter.outgoing.internal.Holds;
import dev.limiter.outgoing.internal.MemoryHolds;
import dev.limiter.outgoing.internal.MicrometerOutgoingObserver;
import dev.limiter.outgoing.internal.OutgoingCalls;
import dev.limiter.outgoing.internal.OutgoingObserver;
import dev.limiter.outgoing.internal.OutgoingRoute;
import dev.limiter.outgoing.internal.RedisHolds;
import dev.limiter.redis.RedisRateLimiterFactory;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Limiter on outgoing calls, from {@code limiter.outgoing}: the interceptor of RestClient and RestTemplate
 * and the filter of WebClient, added to every builder Spring Boot makes; holds kept in Redis with the
 * Redis backend, in the process otherwise; Micrometer metrics when a {@code MeterRegistry} exists.
 */
@AutoConfiguration(after = LimiterAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnBooleanProperty(name = "limiter.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimiterRegistry.class)
@EnableConfigurationProperties(OutgoingProperties.class)
public final class LimiterHttpClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OutgoingCalls limiterOutgoingCalls(OutgoingProperties properties, RateLimiterRegistry registry, ObjectProvider<Holds> holds,
            ObjectProvider<LimiterClock> clock, ObjectProvider<MeterRegistry> meters) {
        List<OutgoingRoute> routes = new ArrayList<>();
        List<OutgoingProperties.Route> configured = properties.getOutgoing();
        for (int i = 0; i < configured.size(); i++) {
            OutgoingProperties.Route route = configured.get(i);
            routes.add(OutgoingRoute.of("limiter.outgoing[" + i + "]", route.getHost(), route.getUrl(), route.getLimiter(), route.getKey()));
        }
        Holds store = holds.getIfAvailable(() -> new MemoryHolds(clock.getIfAvailable(LimiterClock::system)));
        return new OutgoingCalls(routes, registry, store, observer(meters));
    }

    private static OutgoingObserver observer(ObjectProvider<MeterRegistry> meters) {
        try {
            MeterRegistry registry = meters.getIfUnique();
            return (registry != null) ? new MicrometerOutgoingObserver(registry) : OutgoingObserver.NONE;
        }
        catch (NoClassDefFoundError ex) {
            return OutgoingObserver.NONE;
        }
    }

    /** The limiters the routes name, so that the startup check counts them as used. */
    @Bean
    static LimiterSites limiterOutgoingSites(OutgoingProperties properties) {
        return () -> {
            Map<String, List<String>> sites = new LinkedHashMap<>();
            List<OutgoingProperties.Route> configured = properties.getOutgoing();
            for (int i = 0; i < configured.size(); i++) {
                String limiter = configured.get(i).getLimiter();
                if (limiter != null && !limiter.isBlank()) {
                    sites.computeIfAbsent(limiter.trim(), (name) -> new ArrayList<>()).add("limiter.outgoing[" + i + "]");
                }
            }
            return sites;
        };
    }

    /** Once every limiter is registered, each route's limiter must exist. */
    @Bean
    static SmartInitializingSingleton limiterOutgoingCheck(ObjectProvider<OutgoingCalls> calls) {
        return () -> calls.getObject().check();
    }

    /** Holds every instance sees, read by each decision's script, with the Redis backend. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.limiter.redis.RedisRateLimiterFactory")
    @ConditionalOnBean(RedisRateLimiterFactory.class)
    static class RedisHoldsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        Holds limiterOutgoingHolds(RedisRateLimiterFactory factory, ObjectProvider<LimiterClock> clock) {
            return new RedisHolds(factory, clock.getIfAvailable(LimiterClock::system));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.restclient.RestClientCustomizer")
    static class RestClients {

        @Bean
        @ConditionalOnMissingBean
        LimiterClientHttpRequestInterceptor limiterClientHttpRequestInterceptor(OutgoingCalls calls) {
            return new LimiterClientHttpRequestInterceptor(calls);
        }

        @Bean
        RestClientCustomizer limiterRestClientCustomizer(LimiterClientHttpRequestInterceptor interceptor, OutgoingCalls calls) {
            return (builder) -> {
                if (!calls.isEmpty()) {
                    builder.requestInterceptor(interceptor);
                }
            };
        }

        @Bean
        RestTemplateCustomizer limiterRestTemplateCustomizer(LimiterClientHttpRequestInterceptor interceptor, OutgoingCalls calls) {
            return (restTemplate) -> {
                if (!calls.isEmpty()) {
                    restTemplate.getInterceptors().add(interceptor);
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.springframework.boot.webclient.WebClientCustomizer", "reactor.core.publisher.Mono" })
    static class WebClients {

        @Bean
        @ConditionalOnMissingBean
        LimiterExchangeFilterFunction limiterExchangeFilterFunction(OutgoingCalls calls) {
            return new LimiterExchangeFilterFunction(calls);
        }

        @Bean
        WebClientCustomizer limiterWebClientCustomizer(LimiterExchangeFilterFunction filter, OutgoingCalls calls) {
            return (builder) -> {
                if (!calls.isEmpty()) {
                    builder.filter(filter);
                }
            };
        }
    }
}

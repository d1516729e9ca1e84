package dev.limiter.gateway;

import java.util.List;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.LimiterSites;
import dev.limiter.autoconfigure.web.LimiterWebFluxAutoConfiguration;
import dev.limiter.autoconfigure.web.LimiterWebMvcAutoConfiguration;
import dev.limiter.gateway.internal.GatewayLimits;
import dev.limiter.gateway.internal.GatewayRouteSites;
import dev.limiter.gateway.internal.XRateLimitHeaders;
import dev.limiter.spring.internal.interceptor.RateLimitedMethods;
import dev.limiter.spring.internal.web.WebFluxRejections;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.cloud.gateway.server.mvc.config.FilterProperties;
import org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties;
import org.springframework.cloud.gateway.server.mvc.config.RouteProperties;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResultHandler;

/**
 * Limiter in Spring Cloud Gateway, with the gateway on the class path: for the reactive gateway, the
 * {@code RateLimiter} bean {@code limiter} for {@code RequestRateLimiter} and the {@code Limiter} filter;
 * for both, what they limit with, which the Server MVC gateway's {@code Limiter} filter functions find
 * themselves (they are listed in {@code META-INF/spring.factories}).
 */
@AutoConfiguration(after = { LimiterAutoConfiguration.class, LimiterWebFluxAutoConfiguration.class, LimiterWebMvcAutoConfiguration.class },
        afterName = { "org.springframework.cloud.gateway.config.GatewayAutoConfiguration",
            "org.springframework.cloud.gateway.server.mvc.GatewayServerMvcAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "limiter.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitedMethods.class)
@Conditional(LimiterGatewayAutoConfiguration.OnGateway.class)
@EnableConfigurationProperties(LimiterGatewayProperties.class)
@Import({ LimiterGatewayAutoConfiguration.ReactiveGateway.class, LimiterGatewayAutoConfiguration.ServerMvcGateway.class })
public final class LimiterGatewayAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    GatewayLimits limiterGatewayLimits(RateLimiterRegistry registry, RateLimitedMethods methods, LimiterProperties properties,
            LimiterGatewayProperties gateway, Environment environment) {
        return new GatewayLimits(registry, methods, properties, XRateLimitHeaders.configured(gateway, Binder.get(environment)));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties")
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class ServerMvcGateway {

        /** The limiters the Server MVC gateway's YAML routes name, so that the startup check counts them as used. */
        @Bean
        LimiterSites limiterServerMvcGatewaySites(ObjectProvider<GatewayMvcProperties> gateway) {
            return () -> routes(gateway).sites();
        }

        /** Checks the Limiter filters of the YAML routes at startup, rather than on each route's first request. */
        @Bean
        SmartInitializingSingleton limiterServerMvcGatewayRouteCheck(ObjectProvider<GatewayMvcProperties> gateway, GatewayLimits limits) {
            return () -> routes(gateway).check(limits, false);
        }

        private static GatewayRouteSites routes(ObjectProvider<GatewayMvcProperties> gateway) {
            GatewayRouteSites sites = new GatewayRouteSites();
            gateway.ifAvailable((properties) -> {
                String prefix = "spring.cloud.gateway.server.webmvc.routes";
                List<RouteProperties> routes = properties.getRoutes();
                for (int i = 0; i < routes.size(); i++) {
                    String id = routes.get(i).getId();
                    filters(sites, prefix + "[" + i + "] (route " + id + ")", prefix + "[" + i + "]", id, routes.get(i));
                }
                properties.getRoutesMap().forEach((id, route) -> filters(sites, prefix + "-map." + id, prefix + "-map." + id, id, route));
            });
            return sites;
        }

        private static void filters(GatewayRouteSites sites, String where, String route, String id, RouteProperties properties) {
            List<FilterProperties> filters = properties.getFilters();
            for (int j = 0; j < filters.size(); j++) {
                sites.filter(where, route + ".filters[" + j + "]", id, filters.get(j).getName(), filters.get(j).getArgs(), false);
            }
        }
    }

    /** Either gateway on the class path: without one, this module's jar alone adds nothing. */
    static final class OnGateway extends AnyNestedCondition {

        OnGateway() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnClass(name = "org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory")
        static final class Reactive {
        }

        @ConditionalOnClass(name = "org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions")
        static final class ServerMvc {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory")
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class ReactiveGateway {

        /**
         * Named so that routes refer to it ({@code rate-limiter: "#{@limiter}"}); not a default candidate,
         * so the gateway's own RedisRateLimiter stays the RateLimiter of routes that name none.
         */
        @Bean(name = "limiter", defaultCandidate = false)
        @ConditionalOnMissingBean(name = "limiter")
        LimiterRateLimiter limiter(GatewayLimits limits, ObjectProvider<ConfigurationService> configurationService) {
            return new LimiterRateLimiter(limits, configurationService.getIfAvailable());
        }

        /** The limiters the gateway's YAML routes name, so that the startup check counts them as used. */
        @Bean
        LimiterSites limiterReactiveGatewaySites(ObjectProvider<GatewayProperties> gateway) {
            return () -> routes(gateway).sites();
        }

        /**
         * Checks the Limiter and RequestRateLimiter filters of the YAML routes at startup, rather than on each
         * route's first request (RequestRateLimiter's only when the bean {@code limiter} is Limiter's).
         */
        @Bean
        SmartInitializingSingleton limiterReactiveGatewayRouteCheck(ObjectProvider<GatewayProperties> gateway, GatewayLimits limits,
                ListableBeanFactory beans) {
            return () -> {
                boolean limitersBean = beans.containsBean("limiter") && beans.isTypeMatch("limiter", LimiterRateLimiter.class);
                routes(gateway).check(limits, limitersBean);
            };
        }

        private static GatewayRouteSites routes(ObjectProvider<GatewayProperties> gateway) {
            GatewayRouteSites sites = new GatewayRouteSites();
            gateway.ifAvailable((properties) -> {
                String prefix = "spring.cloud.gateway.server.webflux.";
                List<RouteDefinition> routes = properties.getRoutes();
                for (int i = 0; i < routes.size(); i++) {
                    String id = routes.get(i).getId();
                    List<FilterDefinition> filters = routes.get(i).getFilters();
                    for (int j = 0; j < filters.size(); j++) {
                        sites.filter(prefix + "routes[" + i + "] (route " + id + ")", prefix + "routes[" + i + "].filters[" + j + "]", id,
                                filters.get(j).getName(), filters.get(j).getArgs(), true);
                    }
                }
                List<FilterDefinition> filters = properties.getDefaultFilters();
                for (int i = 0; i < filters.size(); i++) {
                    sites.filter(prefix + "default-filters[" + i + "]", prefix + "default-filters[" + i + "]", null, filters.get(i).getName(),
                            filters.get(i).getArgs(), false);
                }
            });
            return sites;
        }

        @Bean
        @ConditionalOnMissingBean
        LimiterGatewayFilterFactory limiterGatewayFilterFactory(GatewayLimits limits, ObjectProvider<HandlerAdapter> handlerAdapters,
                ObjectProvider<HandlerResultHandler> resultHandlers, ObjectProvider<org.springframework.cloud.gateway.config.GatewayProperties> gateway) {
            return new LimiterGatewayFilterFactory(limits, new WebFluxRejections(handlerAdapters, resultHandlers), gateway);
        }
    }
}

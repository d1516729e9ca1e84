package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import dev.limiter.Algorithm;
import dev.limiter.LimitSpec;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiterConfig;
import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.memory.InMemoryRateLimiterFactory;
import dev.limiter.outgoing.internal.MemoryHolds;
import dev.limiter.outgoing.internal.OutgoingCalls;
import dev.limiter.outgoing.internal.OutgoingObserver;
import dev.limiter.outgoing.internal.OutgoingRoute;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.web.client.RestClient;

/**
 * Which calls a route of {@code limiter.outgoing} takes: a host exactly or {@code *.host} for its subdomains
 * (any scheme, port and path), a url pattern by scheme, host, port when given (the scheme's default when the
 * call names none) and Ant-style path; the first route that takes a call decides it, and a call no route
 * takes is not limited. Then the same through the auto-configured RestClient against a local upstream.
 */
class OutgoingRouteTests {

    @Test
    void aHostTakesThatHostAloneWithAnySchemePortAndPath() {
        OutgoingRoute route = host("api.partner.com");
        assertRoute(route).accepts("https://api.partner.com/v1/orders", "http://API.Partner.com:8080/", "https://api.partner.com",
                "https://api.partner.com/v1/orders?page=2");
        assertRoute(route).rejects("https://partner.com/v1", "https://eu.api.partner.com/v1", "https://xapi.partner.com/v1",
                "https://api.partner.com.evil.com/v1", "/v1/orders");
    }

    @Test
    void aWildcardHostTakesEverySubdomainButNotTheDomainItself() {
        OutgoingRoute route = host("*.partner.com");
        assertRoute(route).accepts("https://api.partner.com/v1", "https://eu.api.partner.com/v1", "http://API.PARTNER.COM:81/");
        assertRoute(route).rejects("https://partner.com/v1", "https://evilpartner.com/v1", "https://partner.com.evil.com/v1",
                "https://api.partner.co/v1");
    }

    @Test
    void aUrlPatternTakesItsSchemeHostAndAntStylePath() {
        OutgoingRoute route = url("https://api.partner.com/v2/**");
        assertRoute(route).accepts("https://api.partner.com/v2/orders", "https://api.partner.com/v2/orders/7/lines",
                "https://api.partner.com/v2", "HTTPS://api.partner.com/v2/orders?page=2", "https://api.partner.com:8443/v2/orders");
        assertRoute(route).rejects("http://api.partner.com/v2/orders", "https://api.partner.com/v1/orders",
                "https://api.partner.com/v20/orders", "https://api.partner.com/", "https://api.partner.com",
                "https://eu.partner.com/v2/orders");
        assertRoute(url("HTTPS://*.Partner.com/v2/*/orders")).accepts("https://eu.partner.com/v2/acme/orders")
            .rejects("https://eu.partner.com/v2/acme/x/orders", "https://partner.com/v2/acme/orders");
        assertRoute(url("https://api.partner.com/v2/**/lines")).accepts("https://api.partner.com/v2/orders/7/lines")
            .rejects("https://api.partner.com/v2/orders/7");
        // The path is matched as sent, encoded.
        assertRoute(url("https://api.partner.com/v2/a%20b")).accepts("https://api.partner.com/v2/a%20b");
        // Without a path, the whole host; the root path alone with "/".
        assertRoute(url("https://api.partner.com")).accepts("https://api.partner.com", "https://api.partner.com/v9/x");
        assertRoute(url("https://api.partner.com/")).accepts("https://api.partner.com", "https://api.partner.com/")
            .rejects("https://api.partner.com/v1");
    }

    @Test
    void aUrlPatternsPortMustMatchCountingTheSchemesDefault() {
        assertRoute(url("https://api.partner.com:443/**")).accepts("https://api.partner.com/v1", "https://api.partner.com:443/v1")
            .rejects("https://api.partner.com:8443/v1", "http://api.partner.com:443/v1");
        assertRoute(url("http://api.partner.com:80/**")).accepts("http://api.partner.com/v1").rejects("http://api.partner.com:8080/v1");
        assertRoute(url("http://localhost:8080/**")).accepts("http://localhost:8080/v1")
            .rejects("http://localhost:8081/v1", "http://localhost/v1", "https://localhost:8080/v1");
        assertRoute(url("http://[::1]:8080/v1/**")).accepts("http://[::1]:8080/v1/x").rejects("http://[::1]:8081/v1/x", "http://127.0.0.1:8080/v1/x");
        assertRoute(url("http://[::1]/v1/**")).accepts("http://[::1]:9/v1/x");
        assertRoute(host("[::1]")).accepts("http://[::1]:9/v1/x");
    }

    @Test
    void badPatternsAreRefusedNamingTheProperty() {
        assertThatThrownBy(() -> url("api.partner.com/v2/**")).isInstanceOf(LimiterConfigurationException.class)
            .hasMessageContaining("limiter.outgoing[0].url = api.partner.com/v2/**");
        assertThatThrownBy(() -> url("https://api.partner.com:port/v2")).isInstanceOf(LimiterConfigurationException.class)
            .hasMessageContaining("The port is no number");
        assertThatThrownBy(() -> host("api.partner.com/v2")).isInstanceOf(LimiterConfigurationException.class)
            .hasMessageContaining("limiter.outgoing[0].host = api.partner.com/v2");
        assertThatThrownBy(() -> host("api.*.com")).isInstanceOf(LimiterConfigurationException.class);
    }

    @Test
    void theFirstRouteThatTakesACallDecidesItAndACallNoneTakesIsNotLimited() {
        RateLimiterRegistry registry = new RateLimiterRegistry(InMemoryRateLimiterFactory.builder().clock(new VirtualClock()).build());
        for (String name : List.of("v2", "api", "subdomains")) {
            registry.register(name, Algorithm.FIXED_WINDOW, LimitSpec.of(10, Duration.ofMinutes(1)));
        }
        OutgoingRoute v2 = OutgoingRoute.of("limiter.outgoing[0]", null, "https://api.partner.com/v2/**", "v2", null);
        OutgoingRoute api = OutgoingRoute.of("limiter.outgoing[1]", "api.partner.com", null, "api", null);
        OutgoingRoute subdomains = OutgoingRoute.of("limiter.outgoing[2]", "*.partner.com", null, "subdomains", null);
        OutgoingCalls calls = calls(registry, v2, api, subdomains);
        assertThat(limiterOf(calls, "https://api.partner.com/v2/orders")).isEqualTo("v2");
        assertThat(limiterOf(calls, "https://api.partner.com/v1/orders")).isEqualTo("api");
        assertThat(limiterOf(calls, "https://eu.partner.com/v2/orders")).isEqualTo("subdomains");
        assertThat(calls.call(request("https://partner.com/v2/orders"))).as("a call no route takes").isNull();
        assertThat(calls.call(request("https://maps.example.com/"))).isNull();
        // In another order, the host's route takes the calls the url's route would have.
        OutgoingCalls reordered = calls(registry, subdomains, api, v2);
        assertThat(limiterOf(reordered, "https://api.partner.com/v2/orders")).isEqualTo("subdomains");
        assertThat(limiterOf(calls(registry, api, v2), "https://api.partner.com/v2/orders")).isEqualTo("api");
    }

    /**
     * End to end: a RestClient from Spring Boot's builder, routes by url (path, port, scheme) before a route by
     * host, and calls to a host no route names, against a local upstream.
     */
    @Test
    void theAutoConfiguredClientFollowsTheRoutesInOrder() {
        try (ScriptedUpstream upstream = new ScriptedUpstream()) {
            int port = upstream.port();
            new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterHttpClientAutoConfiguration.class,
                        RestClientAutoConfiguration.class))
                .withBean(LimiterClock.class, VirtualClock::new)
                .withPropertyValues("limiter.backend=memory",
                        "limiter.limiters.orders.algorithm=fixed-window", "limiter.limiters.orders.limit=1",
                        "limiter.limiters.orders.window=1h",
                        "limiter.limiters.rest.algorithm=fixed-window", "limiter.limiters.rest.limit=3", "limiter.limiters.rest.window=1h",
                        "limiter.outgoing[0].url=http://127.0.0.1:" + port + "/v2/*/orders", "limiter.outgoing[0].limiter=orders",
                        "limiter.outgoing[1].url=https://127.0.0.1:" + port + "/**", "limiter.outgoing[1].limiter=orders",
                        "limiter.outgoing[2].url=http://127.0.0.1:" + (port == 65535 ? port - 1 : port + 1) + "/**",
                        "limiter.outgoing[2].limiter=orders",
                        "limiter.outgoing[3].host=127.0.0.1", "limiter.outgoing[3].limiter=rest")
                .run((context) -> {
                    RestClient client = context.getBean(RestClient.Builder.class).build();
                    String base = upstream.url();
                    client.get().uri(base + "/v2/acme/orders").retrieve().toBodilessEntity();
                    assertThatThrownBy(() -> client.get().uri(base + "/v2/other/orders").retrieve().toBodilessEntity())
                        .isInstanceOf(OutgoingCallRejectedException.class)
                        .hasMessageContaining("limiter 'orders'");
                    // Neither the https route nor the other port's takes these: the host's route does, with its own limit.
                    for (int i = 0; i < 3; i++) {
                        client.get().uri(base + "/v2/acme/lines").retrieve().toBodilessEntity();
                    }
                    assertThatThrownBy(() -> client.get().uri(base + "/v2/acme/lines").retrieve().toBodilessEntity())
                        .isInstanceOf(OutgoingCallRejectedException.class)
                        .hasMessageContaining("limiter 'rest'");
                    // No route names localhost: not limited.
                    for (int i = 0; i < 5; i++) {
                        client.get().uri("http://localhost:" + port + "/v2/acme/orders").retrieve().toBodilessEntity();
                    }
                    assertThat(upstream.paths()).hasSize(1 + 3 + 5);
                });
        }
    }

    private static OutgoingCalls calls(RateLimiterRegistry registry, OutgoingRoute... routes) {
        return new OutgoingCalls(List.of(routes), registry, new MemoryHolds(new VirtualClock()), OutgoingObserver.NONE);
    }

    private static String limiterOf(OutgoingCalls calls, String uri) {
        OutgoingCalls.Call call = calls.call(request(uri));
        assertThat(call).as("the call of %s", uri).isNotNull();
        return call.limiter().name();
    }

    private static OutgoingRoute host(String host) {
        return OutgoingRoute.of("limiter.outgoing[0]", host, null, "partner", null);
    }

    private static OutgoingRoute url(String url) {
        return OutgoingRoute.of("limiter.outgoing[0]", null, url, "partner", null);
    }

    private static OutgoingRequest request(String uri) {
        return new OutgoingRequest(HttpMethod.GET, URI.create(uri), new HttpHeaders());
    }

    private static RouteAssert assertRoute(OutgoingRoute route) {
        return new RouteAssert(route);
    }

    /** Which of the given URIs a route takes, each named when it fails. */
    private record RouteAssert(OutgoingRoute route) {

        RouteAssert accepts(String... uris) {
            for (String uri : uris) {
                assertThat(route.matches(request(uri))).as("%s takes %s", route, uri).isTrue();
            }
            return this;
        }

        RouteAssert rejects(String... uris) {
            for (String uri : uris) {
                assertThat(route.matches(request(uri))).as("%s does not take %s", route, uri).isFalse();
            }
            return this;
        }
    }
}

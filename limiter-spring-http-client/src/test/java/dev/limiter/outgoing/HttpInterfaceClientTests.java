package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.Function;

import dev.limiter.LimiterClock;
import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.service.ReactiveHttpServiceClientAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientAdapter;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.reactive.function.client.support.WebClientAdapter;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.invoker.HttpServiceProxyFactory;
import org.springframework.web.service.registry.HttpServiceGroup;
import org.springframework.web.service.registry.ImportHttpServices;

/**
 * HTTP interface clients ({@code @HttpExchange}) are limited by the routes of {@code limiter.outgoing} like the
 * clients they are built on: built with {@link HttpServiceProxyFactory} on a RestClient or WebClient from Spring
 * Boot's builders, and Spring Boot's HTTP service groups ({@link ImportHttpServices}) of either client type.
 * Each against a local upstream: calls within the limit go out, the next fails naming the limiter and key without
 * reaching the upstream, and an upstream's 429 with Retry-After holds the key.
 */
class HttpInterfaceClientTests {

    /** An upstream's API as an HTTP interface, called through a RestClient. */
    @HttpExchange("/v1")
    interface PartnerApi {

        @GetExchange("/orders")
        String orders(@RequestHeader("X-Api-Key") String apiKey);
    }

    /** The same API, called through a WebClient (blocking methods on a reactive client, as HTTP interfaces allow). */
    @HttpExchange("/v1")
    interface ReactivePartnerApi {

        @GetExchange("/orders")
        String orders(@RequestHeader("X-Api-Key") String apiKey);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "partner", types = PartnerApi.class)
    @ImportHttpServices(group = "reactive-partner", types = ReactivePartnerApi.class, clientType = HttpServiceGroup.ClientType.WEB_CLIENT)
    static class PartnerServices {
    }

    private final ScriptedUpstream upstream = new ScriptedUpstream();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterHttpClientAutoConfiguration.class,
                HttpClientAutoConfiguration.class, ImperativeHttpClientAutoConfiguration.class, ReactiveHttpClientAutoConfiguration.class,
                HttpServiceClientPropertiesAutoConfiguration.class, RestClientAutoConfiguration.class, WebClientAutoConfiguration.class,
                HttpServiceClientAutoConfiguration.class, ReactiveHttpServiceClientAutoConfiguration.class))
        .withBean(LimiterClock.class, VirtualClock::new)
        .withPropertyValues("limiter.backend=memory", "limiter.limiters.partner.algorithm=gcra", "limiter.limiters.partner.limit=2",
                "limiter.limiters.partner.window=1s", "limiter.limiters.partner.burst=2", "limiter.limiters.partner.max-wait=0s",
                "limiter.outgoing[0].url=http://127.0.0.1/v1/**", "limiter.outgoing[0].limiter=partner",
                "limiter.outgoing[0].key=#request.headers['X-Api-Key']");

    @AfterEach
    void stop() {
        upstream.close();
    }

    @Test
    void aProxyOnARestClientFromBootsBuilderIsLimited() {
        runner.run((context) -> {
            RestClient client = context.getBean(RestClient.Builder.class).baseUrl(upstream.url()).build();
            PartnerApi api = HttpServiceProxyFactory.builderFor(RestClientAdapter.create(client)).build().createClient(PartnerApi.class);
            assertLimited(api::orders, HttpClientErrorException.TooManyRequests.class);
        });
    }

    @Test
    void aProxyOnAWebClientFromBootsBuilderIsLimited() {
        runner.run((context) -> {
            WebClient client = context.getBean(WebClient.Builder.class).baseUrl(upstream.url()).build();
            ReactivePartnerApi api = HttpServiceProxyFactory.builderFor(WebClientAdapter.create(client)).build()
                .createClient(ReactivePartnerApi.class);
            assertLimited(api::orders, WebClientResponseException.TooManyRequests.class);
        });
    }

    @Test
    void bootsHttpServiceGroupsAreLimited() {
        runner.withUserConfiguration(PartnerServices.class)
            .withPropertyValues("spring.http.serviceclient.partner.base-url=" + upstream.url(),
                    "spring.http.serviceclient.reactive-partner.base-url=" + upstream.url())
            .run((context) -> {
                assertLimited(context.getBean(PartnerApi.class)::orders, HttpClientErrorException.TooManyRequests.class);
                // One quota per key and limiter, whichever client calls: the RestClient group spent acme's and other's.
                assertThatThrownBy(() -> context.getBean(ReactivePartnerApi.class).orders("acme"))
                    .isInstanceOf(OutgoingCallRejectedException.class);
                upstream.answer("200");
                assertThat(context.getBean(ReactivePartnerApi.class).orders("third")).contains("ok");
                assertThat(context.getBean(ReactivePartnerApi.class).orders("third")).contains("ok");
                assertThatThrownBy(() -> context.getBean(ReactivePartnerApi.class).orders("third"))
                    .isInstanceOf(OutgoingCallRejectedException.class)
                    .hasMessageContaining("limiter 'partner', key 'third'");
                assertThat(upstream.paths()).hasSize(3 + 2);
            });
    }

    /**
     * Two calls of key acme go out, the third fails without reaching the upstream; an upstream's 429 with
     * Retry-After reaches the caller as the client's error and holds key other, whose next call fails as held.
     */
    private void assertLimited(Function<String, String> orders, Class<? extends Exception> tooMany) {
        assertThat(orders.apply("acme")).contains("ok");
        assertThat(orders.apply("acme")).contains("ok");
        assertThatThrownBy(() -> orders.apply("acme")).isInstanceOf(OutgoingCallRejectedException.class)
            .hasMessageContaining("limiter 'partner', key 'acme'");
        assertThat(upstream.paths()).containsExactly("/v1/orders", "/v1/orders");
        upstream.answer("429 Retry-After: 30");
        assertThatThrownBy(() -> orders.apply("other")).isInstanceOf(tooMany);
        assertThatThrownBy(() -> orders.apply("other")).isInstanceOfSatisfying(OutgoingCallRejectedException.class, (rejected) -> {
            assertThat(rejected.isHeld()).isTrue();
            assertThat(rejected.getDecision().retryAfter()).isEqualTo(Duration.ofSeconds(30));
        });
        assertThat(upstream.paths()).hasSize(3);
    }
}

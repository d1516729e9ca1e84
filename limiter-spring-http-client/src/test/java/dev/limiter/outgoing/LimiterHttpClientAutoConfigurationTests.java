package dev.limiter.outgoing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.autoconfigure.LimiterSites;
import dev.limiter.spring.LimiterConfigurationException;
import dev.limiter.test.VirtualClock;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.http.RequestEntity;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The auto-configuration on the memory backend with an explicit clock: the clients Spring Boot builds
 * are limited by limiter.outgoing, a call without a permit within max-wait fails naming the limiter and
 * the key, an upstream's 429 with Retry-After holds the key, and mistakes name their property.
 */
class LimiterHttpClientAutoConfigurationTests {

    private final VirtualClock clock = new VirtualClock();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LimiterAutoConfiguration.class, LimiterHttpClientAutoConfiguration.class,
                RestClientAutoConfiguration.class, RestTemplateAutoConfiguration.class, WebClientAutoConfiguration.class))
        .withBean(dev.limiter.LimiterClock.class, () -> clock)
        .withPropertyValues("limiter.backend=memory", "limiter.limiters.partner.algorithm=gcra", "limiter.limiters.partner.limit=2",
                "limiter.limiters.partner.window=1s", "limiter.limiters.partner.burst=2", "limiter.limiters.partner.max-wait=0s",
                "limiter.outgoing[0].host=127.0.0.1", "limiter.outgoing[0].limiter=partner",
                "limiter.outgoing[0].key=#request.headers['X-Api-Key']");

    private HttpServer upstream;

    private final AtomicInteger calls = new AtomicInteger();

    private final AtomicReference<String> answer = new AtomicReference<>("200");

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/", (exchange) -> {
            calls.incrementAndGet();
            String[] parts = answer.get().split(" ", 2);
            if (parts.length > 1) {
                String[] field = parts[1].split(": ", 2);
                exchange.getResponseHeaders().add(field[0], field[1]);
            }
            exchange.sendResponseHeaders(Integer.parseInt(parts[0]), -1);
            exchange.close();
        });
        upstream.start();
    }

    @AfterEach
    void stop() {
        upstream.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + upstream.getAddress().getPort() + "/v1";
    }

    @Test
    void restClientCallsWithoutAPermitFailNamingLimiterAndKey() {
        runner.run((context) -> {
            RestClient client = context.getBean(RestClient.Builder.class).build();
            for (int i = 0; i < 2; i++) {
                client.get().uri(url()).header("X-Api-Key", "acme").retrieve().toBodilessEntity();
            }
            assertThatThrownBy(() -> client.get().uri(url()).header("X-Api-Key", "acme").retrieve().toBodilessEntity())
                .isInstanceOf(OutgoingCallRejectedException.class)
                .hasMessageContaining("limiter 'partner', key 'acme'")
                .hasMessageContaining("max-wait 0 ms")
                .hasMessageContaining("would need 500 ms more");
            // Another key has its own quota; a host no route takes is not limited.
            client.get().uri(url()).header("X-Api-Key", "other").retrieve().toBodilessEntity();
            client.get().uri(url().replace("127.0.0.1", "localhost")).retrieve().toBodilessEntity();
            assertThat(calls).hasValue(4);
        });
    }

    @Test
    void anUpstreamsRetryAfterHoldsTheKeyForRestTemplateAndWebClientToo() {
        runner.run((context) -> {
            answer.set("429 Retry-After: 30");
            WebClient web = context.getBean(WebClient.Builder.class).build();
            Integer status = web.get().uri(url()).header("X-Api-Key", "acme")
                .exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value())).block();
            assertThat(status).isEqualTo(429);
            answer.set("200");
            var template = context.getBean(RestTemplateBuilder.class).build();
            assertThatThrownBy(() -> template.exchange(RequestEntity.get(url()).header("X-Api-Key", "acme").build(), Void.class))
                .isInstanceOf(OutgoingCallRejectedException.class)
                .hasMessageContaining("is held by the upstream")
                .hasMessageContaining("would need 30000 ms more");
            assertThat(calls).hasValue(1);
            clock.advance(Duration.ofSeconds(30));
            assertThat(web.get().uri(url()).header("X-Api-Key", "acme").retrieve().toBodilessEntity().block().getStatusCode().value())
                .isEqualTo(200);
        });
    }

    /** A limiter only outgoing routes use is used: the startup check knows the route that names it. */
    @Test
    void theRoutesLimitersCountAsUsed() {
        runner.run((context) -> assertThat(context.getBean(LimiterSites.class).sites())
            .isEqualTo(java.util.Map.of("partner", java.util.List.of("limiter.outgoing[0]"))));
    }

    @Test
    void anUnknownLimiterIsNamedWithItsProperty() {
        runner.withPropertyValues("limiter.outgoing[0].limiter=partnr").run((context) -> assertThat(context).getFailure()
            .isInstanceOf(LimiterConfigurationException.class)
            .hasMessageContaining("limiter.outgoing[0].limiter")
            .hasMessageContaining("partner"));
    }

    /**
     * A limiter with plans picks one per call from what the application serves; an outgoing call has nothing to
     * pick by, so the route is refused naming its property and the fix, not as a limiter that does not exist.
     */
    @Test
    void aLimiterWithPlansIsRefusedSayingWhy() {
        runner.withPropertyValues("limiter.limiters.tiered.algorithm=gcra", "limiter.limiters.tiered.default-plan=free",
                "limiter.limiters.tiered.plans.free.limit=10", "limiter.limiters.tiered.plans.free.window=1s",
                "limiter.limiters.tiered.plans.pro.limit=100", "limiter.limiters.tiered.plans.pro.window=1s",
                "limiter.outgoing[1].host=api.partner.com", "limiter.outgoing[1].limiter=tiered")
            .run((context) -> assertThat(context).getFailure()
                .isInstanceOf(LimiterConfigurationException.class)
                .hasMessageStartingWith("Limiter 'tiered' has plans [free, pro], but an outgoing call has no request or principal to pick a plan by")
                .hasMessageContaining("(limiter.outgoing[1].limiter = tiered)")
                .hasMessageContaining("Name a limiter without plans")
                .hasMessageContaining("set limiter.outgoing[1].limiter to it, or name one of: partner")
                .hasMessageNotContaining("There is no limiter")
                .hasMessageNotContaining("partner, tiered"));
    }

    @Test
    void aRouteWithHostAndUrlIsRefused() {
        runner.withPropertyValues("limiter.outgoing[0].url=https://api.partner.com/**").run((context) -> assertThat(context).getFailure()
            .rootCause()
            .isInstanceOf(LimiterConfigurationException.class)
            .hasMessageContaining("limiter.outgoing[0].url"));
    }
}

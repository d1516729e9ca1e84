package dev.limiter.sample.gateway.mvc;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.limiter.test.VirtualClock;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** One instance of the Server MVC sample gateway, with its application.yml, on a free port, and a client sending it requests. */
final class SampleGateway implements AutoCloseable {

    // HTTP/1.1, what the gateway speaks, without the h2c upgrade the client tries by default.
    private static final HttpClient CLIENT = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    // On a loaded 2-core CI machine a request to a freshly started gateway, whose first requests load and
    // compile much of its web stack, has taken over 10 s. A request that hangs still fails, after a minute.
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final ConfigurableApplicationContext context;

    private SampleGateway(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Starts the sample routing to {@code backendUri}, with {@code properties} over its application.yml. */
    static SampleGateway start(String backendUri, List<String> properties) {
        List<String> all = new ArrayList<>(properties);
        all.add("sample.backend-uri=" + backendUri);
        all.add("server.port=0");
        all.add("spring.main.banner-mode=off");
        // As arguments, over application.yml (default properties would lose to it).
        return new SampleGateway(new SpringApplicationBuilder(GatewayMvcSampleApplication.class, FrozenTime.class)
            .run(all.stream().map((property) -> "--" + property).toArray(String[]::new)));
    }

    /** Limiter's clock of this instance, which moves only when a test moves it. */
    VirtualClock clock() {
        return context.getBean(VirtualClock.class);
    }

    String url() {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    HttpResponse<String> get(String path, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url() + path)).timeout(REQUEST_TIMEOUT).GET();
        headers.forEach(request::header);
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (IOException ex) {
            throw new IllegalStateException("GET " + path + " " + headers + " to " + url() + ": " + ex, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    HttpResponse<String> get(String path) {
        return get(path, Map.of());
    }

    @Override
    public void close() {
        context.close();
    }

    /**
     * Limiter's clock stands still at the same instant in every instance, 10 s into a minute, so that no
     * window ends while a test counts: the counts are exact, however slow the machine. A test that needs a
     * window to end moves the clock of every instance.
     */
    @Configuration(proxyBeanMethods = false)
    static class FrozenTime {

        @Bean
        VirtualClock limiterClock() {
            return new VirtualClock(1_800_000_010_000_000L);
        }
    }
}

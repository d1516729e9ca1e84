package dev.limiter.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;

import dev.limiter.test.TestRedis;
import dev.limiter.test.VirtualClock;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;

/** What the sample's HTTP tests share: a private Redis, a key prefix of their own, a virtual clock, HTTP calls. */
final class SampleTestSupport {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private SampleTestSupport() {
    }

    /** Points the sample at the test Redis, under a fresh key prefix, and returns that prefix. */
    static String useTestRedis(DynamicPropertyRegistry registry) {
        String prefix = "sample-test-" + UUID.randomUUID();
        TestRedis redis = TestRedis.shared();
        registry.add("spring.data.redis.host", redis::host);
        registry.add("spring.data.redis.port", redis::port);
        registry.add("limiter.key-prefix", () -> prefix);
        // On a loaded machine the 100 ms default can expire before a healthy Redis answers.
        registry.add("limiter.redis.timeout", () -> "2s");
        return prefix;
    }

    static HttpResponse<String> get(int port, String path, String user) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET();
        if (user != null) {
            request.header("X-User-Id", user);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Makes the limiters take time from a {@link VirtualClock}. */
    @TestConfiguration(proxyBeanMethods = false)
    static class VirtualTime {

        @Bean
        VirtualClock limiterClock() {
            return new VirtualClock(1_800_001_234_567_890L);
        }
    }
}

package dev.limiter.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.limiter.test.RedisTest;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample's imitation of an LLM completion API, {@code POST /api/completions}, limited to 1000 tokens
 * a minute per user (limiter {@code completion-tokens}): each call reserves its {@code maxTokens} and
 * settles its answer's {@code usage.totalTokens} (a token per prompt word, plus an answer twice as long,
 * cut at maxTokens). Over HTTP on the sample's real Redis, with the limiters' virtual clock.
 */
@RedisTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(SampleTestSupport.VirtualTime.class)
class SettledCostsOverHttpTests {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SampleTestSupport.useTestRedis(registry);
    }

    @LocalServerPort
    int port;

    @Autowired
    VirtualClock clock;

    @Test
    void aCheapAnswerGivesBackAndAnExpensiveOneTakesTheUserIntoDebt() throws Exception {
        // 2 prompt tokens + 4 answer tokens: 6 of the 500 reserved; 994 of 1000 left.
        HttpResponse<String> cheap = complete("ada", "hello there", 500);
        assertThat(cheap.statusCode()).isEqualTo(200);
        assertThat(cheap.body()).contains("\"totalTokens\":6");
        // Only because the 494 came back can 990 be reserved now: 300 + 600 = 900 of it used, 94 left.
        // (Limiter's clock stands still, Redis expires keys in real time: the bucket, 906 short, lives 54 s.)
        HttpResponse<String> large = complete("ada", "word ".repeat(300), 990);
        assertThat(large.statusCode()).isEqualTo(200);
        assertThat(large.body()).contains("\"totalTokens\":900");

        // 1200 prompt tokens + 10 answer tokens = 1210 against 10 reserved: 84 left before, 1116 owed after.
        HttpResponse<String> expensive = complete("ada", "word ".repeat(1200), 10);
        assertThat(expensive.statusCode()).isEqualTo(200);
        assertThat(expensive.body()).contains("\"totalTokens\":1210");

        HttpResponse<String> inDebt = complete("ada", "hi", 1);
        assertThat(inDebt.statusCode()).isEqualTo(429);
        // 1117 tokens at 1000 a minute: 67.02 s, 68 whole seconds.
        assertThat(inDebt.headers().firstValue("Retry-After")).hasValue("68");

        // Another user is not in ada's debt.
        assertThat(complete("grace", "hi", 1).statusCode()).isEqualTo(200);

        // Paid off in time: the debt and one token refilled, the next small call passes.
        clock.advance(Duration.ofMillis(67_020));
        assertThat(complete("ada", "hi", 1).statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> complete(String user, String prompt, int maxTokens) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/completions"))
            .header("X-User-Id", user)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": \"" + prompt.strip() + "\", \"maxTokens\": " + maxTokens + "}"))
            .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}

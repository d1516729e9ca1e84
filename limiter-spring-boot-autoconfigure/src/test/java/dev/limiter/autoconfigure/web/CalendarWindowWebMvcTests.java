package dev.limiter.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;

import dev.limiter.autoconfigure.LimiterAutoConfiguration;
import dev.limiter.spring.RateLimited;
import dev.limiter.test.VirtualClock;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A calendar window's RateLimit fields and Retry-After on Spring MVC answers, near a month end in
 * Europe/Berlin: {@code t} and {@code Retry-After} count to midnight of the next month's first day in that
 * zone, the month's real length (28 days, 31 days less the hour DST skips); {@code w} of
 * {@code RateLimit-Policy} is the month's nominal 31 days.
 */
class CalendarWindowWebMvcTests {

    static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    /** Seconds of the nominal month: 31 days. */
    static final long MONTH = Duration.ofDays(31).toSeconds();

    private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, LimiterAutoConfiguration.class,
                LimiterWebMvcAutoConfiguration.class))
        .withPropertyValues("limiter.backend=memory",
                "limiter.limiters.billing.algorithm=fixed-window", "limiter.limiters.billing.limit=2",
                "limiter.limiters.billing.window=1mo", "limiter.limiters.billing.zone=Europe/Berlin",
                "limiter.limiters.quota.algorithm=fixed-window", "limiter.limiters.quota.zone=Europe/Berlin",
                "limiter.limiters.quota.limits[0].limit=2", "limiter.limiters.quota.limits[0].window=1h",
                "limiter.limiters.quota.limits[1].limit=3", "limiter.limiters.quota.limits[1].window=1mo")
        // 22:30 on January 31 in Berlin: the month ends in an hour and a half.
        .withBean(VirtualClock.class, () -> new VirtualClock(at("2026-01-31T22:30")))
        .withUserConfiguration(BillingController.class);

    @Test
    void tAndRetryAfterCountToTheMonthsEndInTheZone() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvcTester mvc = MockMvcTester.from(context);
            VirtualClock clock = context.getBean(VirtualClock.class);
            long untilFebruary = Duration.ofMinutes(90).toSeconds();
            assertThat(mvc.get().uri("/billing")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"billing\";q=2;w=" + MONTH)
                .hasHeader("RateLimit", "\"billing\";r=1;t=" + untilFebruary);
            mvc.get().uri("/billing").exchange();
            assertThat(mvc.get().uri("/billing")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit", "\"billing\";r=0;t=" + untilFebruary)
                .hasHeader(HttpHeaders.RETRY_AFTER, Long.toString(untilFebruary));

            // Midnight of February 1 in Berlin: a new month of 28 days.
            clock.advance(Duration.ofMinutes(90));
            assertThat(mvc.get().uri("/billing")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"billing\";q=2;w=" + MONTH)
                .hasHeader("RateLimit", "\"billing\";r=1;t=" + Duration.ofDays(28).toSeconds());

            // Midnight of March 1: 31 days, less the hour skipped on March 29 (summer time).
            clock.advance(Duration.ofDays(28));
            mvc.get().uri("/billing").exchange();
            mvc.get().uri("/billing").exchange();
            assertThat(mvc.get().uri("/billing")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit", "\"billing\";r=0;t=" + Duration.ofDays(31).minusHours(1).toSeconds())
                .hasHeader(HttpHeaders.RETRY_AFTER, Long.toString(Duration.ofDays(31).minusHours(1).toSeconds()));
        });
    }

    @Test
    void amongSeveralLimitsTheMonthIsNamedAsConfiguredAndReportedWhenItRejects() {
        this.contextRunner.run((context) -> {
            assertThat(context).hasNotFailed();
            MockMvcTester mvc = MockMvcTester.from(context);
            VirtualClock clock = context.getBean(VirtualClock.class);
            assertThat(mvc.get().uri("/quota")).hasStatusOk()
                .hasHeader("RateLimit-Policy", "\"quota-1h\";q=2;w=3600, \"quota-1mo\";q=3;w=" + MONTH)
                .hasHeader("RateLimit", "\"quota-1h\";r=1;t=1800");
            mvc.get().uri("/quota").exchange();
            // 23:00: a new hour, the month's last permit.
            clock.advance(Duration.ofMinutes(30));
            assertThat(mvc.get().uri("/quota")).hasStatusOk().hasHeader("RateLimit", "\"quota-1mo\";r=0;t=3600");
            assertThat(mvc.get().uri("/quota")).hasStatus(HttpStatus.TOO_MANY_REQUESTS)
                .hasHeader("RateLimit", "\"quota-1mo\";r=0;t=3600")
                .hasHeader(HttpHeaders.RETRY_AFTER, "3600")
                .bodyJson()
                .hasPathSatisfying("$.violatedLimit", (limit) -> limit.assertThat().isEqualTo("3/1mo"));
        });
    }

    static long at(String berlinTime) {
        return LocalDateTime.parse(berlinTime).atZone(BERLIN).toInstant().toEpochMilli() * 1_000L;
    }

    @RestController
    static class BillingController {

        @GetMapping("/billing")
        @RateLimited(name = "billing")
        String billing() {
            return "billing";
        }

        @GetMapping("/quota")
        @RateLimited(name = "quota")
        String quota() {
            return "quota";
        }
    }
}

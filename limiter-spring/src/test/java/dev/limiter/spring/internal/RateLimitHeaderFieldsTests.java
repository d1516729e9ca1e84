package dev.limiter.spring.internal;

import java.time.Duration;

import dev.limiter.Algorithm;
import dev.limiter.Decision;
import dev.limiter.DecisionSource;
import dev.limiter.LimitSpec;
import dev.limiter.LimiterClock;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;
import dev.limiter.memory.InMemoryRateLimiterFactory;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Tests of the values of the RateLimit header fields, independent of any web stack. */
class RateLimitHeaderFieldsTests {

    @Test
    void windowsAreWrittenInTheirLargestWholeUnit() {
        assertThat(RateLimitHeaderFields.window(Duration.ofHours(1))).isEqualTo("1h");
        assertThat(RateLimitHeaderFields.window(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(RateLimitHeaderFields.window(Duration.ofSeconds(120))).isEqualTo("2m");
        assertThat(RateLimitHeaderFields.window(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(RateLimitHeaderFields.window(Duration.ofNanos(250_000))).isEqualTo("250us");
        assertThat(RateLimitHeaderFields.window(Duration.ofDays(366))).isEqualTo("366d");
    }

    @Test
    void subSecondWindowsAnnounceAtLeastOneSecond() {
        RateLimitHeaderFields fields = RateLimitHeaderFields.of(limiter("fast", Algorithm.FIXED_WINDOW, LimitSpec.of(10, Duration.ofMillis(100))));
        assertThat(fields.policy()).isEqualTo("\"fast\";q=10;w=1");
    }

    @Test
    void largestBucketsComputeTheirRefillTimeWithoutOverflow() {
        LimitSpec spec = new LimitSpec(LimitSpec.MAX_LIMIT, LimitSpec.MAX_WINDOW, LimitSpec.MAX_LIMIT);
        RateLimitHeaderFields fields = RateLimitHeaderFields.of(limiter("big", Algorithm.GCRA, spec));
        assertThat(fields.policy()).isEqualTo("\"big\";q=" + LimitSpec.MAX_LIMIT + ";w=" + LimitSpec.MAX_WINDOW.getSeconds());
    }

    @Test
    void quotesAndBackslashesAreEscaped() {
        assertThat(RateLimitHeaderFields.string("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    }

    @Test
    void allowedDecisionReportsTheResetRoundedUp() {
        RateLimitHeaderFields fields = RateLimitHeaderFields.of(limiter("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofSeconds(10))));
        Decision decision = new Decision(true, 5, 3, Duration.ofMillis(4001), Duration.ZERO);
        assertThat(fields.rateLimit(decision)).isEqualTo("\"orders\";r=3;t=5");
    }

    @Test
    void severalLimitsReportTheResetOfTheNamedLimitNotOfEveryLimit() {
        RateLimitHeaderFields fields = RateLimitHeaderFields.of(limiter("search", Algorithm.FIXED_WINDOW,
                LimitSpec.of(5, Duration.ofSeconds(10)), LimitSpec.of(100, Duration.ofMinutes(1))));
        // The 10 s limit has the fewest permits left and is whole in 6.5 s; every limit only in 58 s.
        Decision allowed = new Decision(true, 5, 4, Duration.ofSeconds(58), Duration.ofMillis(6500), Duration.ZERO, Duration.ZERO, null,
                DecisionSource.REDIS);
        assertThat(fields.rateLimit(allowed)).isEqualTo("\"search-10s\";r=4;t=7");
        // Six permits exceed the 10 s limit for ever: no retry time, so the reported limit's quota is shown.
        Decision never = new Decision(false, 5, 4, Duration.ofSeconds(58), Duration.ofMillis(6500), Decision.NEVER, Duration.ZERO,
                LimitSpec.of(5, Duration.ofSeconds(10)), DecisionSource.REDIS);
        assertThat(fields.rateLimit(never)).isEqualTo("\"search-10s\";r=4;t=7");
    }

    @Test
    void aRejectionNamingNoLimitReportsTheRetryOfTheDecision() {
        // The failure policy's deny rejects without any limit having been reached: it names none.
        RateLimitHeaderFields fields = RateLimitHeaderFields.of(limiter("orders", Algorithm.TOKEN_BUCKET, LimitSpec.of(5, Duration.ofSeconds(10))));
        Decision denied = new Decision(false, 5, 0, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ZERO, null,
                DecisionSource.FAILURE_POLICY);
        assertThat(fields.rateLimit(denied)).isEqualTo("\"orders\";r=0;t=1");
    }

    private static RateLimiter limiter(String name, Algorithm algorithm, LimitSpec... limits) {
        return InMemoryRateLimiterFactory.builder().clock(LimiterClock.system()).maxKeys(10).build().create(name, RateLimiterConfig.of(algorithm, limits));
    }

}

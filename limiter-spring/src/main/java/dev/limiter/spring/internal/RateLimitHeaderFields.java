package dev.limiter.spring.internal;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.limiter.Decision;
import dev.limiter.LimitSpec;
import dev.limiter.RateLimiter;
import dev.limiter.RateLimiterConfig;

import org.jspecify.annotations.Nullable;

/**
 * The IETF {@code RateLimit-Policy} and {@code RateLimit} header fields of one limiter
 * (draft-ietf-httpapi-ratelimit-headers, structured-field syntax), such as
 * {@code RateLimit-Policy: "orders";q=5;w=10} and {@code RateLimit: "orders";r=3;t=7}.
 * <p>
 * The policy lists every limit of the limiter; with several limits each is named after the limiter
 * and its window ({@code "api-1s"}, {@code "api-1h"}; a calendar window as configured, {@code "api-1mo"}).
 * {@code q} is the most permits the limit grants at once and {@code w} the seconds it takes to grant
 * them again from empty: the limit and its window for window algorithms (a calendar window's nominal
 * length: 1, 7 or 31 days, whatever the length of the current one); the burst and the time an empty
 * bucket takes to refill for bucket algorithms (so {@code r} never exceeds {@code q}). Both are
 * rounded up to whole seconds of at least 1.
 * <p>
 * {@code RateLimit} reports one limit with its own numbers: the limit with the fewest permits left,
 * {@code r} its remaining permits and {@code t} the seconds, rounded up, until that limit is whole
 * again (not every limit: a per-second limit's {@code t} is not the hour's). A rejection reports the
 * violated limit and the {@code Retry-After} value as {@code t} instead, so a client never retries
 * before that limit admits the request. Only one limit: a decision carries the numbers of no other.
 */
public final class RateLimitHeaderFields {

    /** Name of the field listing the limits. */
    public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";

    /** Name of the field reporting the current quota. */
    public static final String RATE_LIMIT = "RateLimit";

    private static final long MICROS_PER_SECOND = 1_000_000L;

    /** The configuration the fields describe. */
    private final RateLimiterConfig config;

    private final List<LimitSpec> limits;

    /** Each limit's capacity, as its decisions report it in {@link Decision#limit()}. */
    private final long[] capacities;

    /** Each limit's name, quoted as a structured-field string: made once, not per response. */
    private final String[] quotedNames;

    private final String policy;

    private RateLimitHeaderFields(RateLimiter limiter) {
        this.config = limiter.config();
        this.limits = config.limits();
        boolean bucket = config.algorithm().isBucket();
        List<String> members = new ArrayList<>();
        this.capacities = new long[limits.size()];
        this.quotedNames = new String[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            LimitSpec limit = limits.get(i);
            String name = (limits.size() == 1) ? limiter.name() : limiter.name() + "-" + window(limit);
            long capacity = bucket ? limit.burst() : limit.limit();
            long refillMicros = bucket ? ceilDiv(BigInteger.valueOf(limit.burst()).multiply(BigInteger.valueOf(micros(limit.window()))),
                    limit.limit()) : micros(limit.window());
            quotedNames[i] = string(name);
            capacities[i] = capacity;
            members.add(quotedNames[i] + ";q=" + capacity + ";w=" + Math.max(1, ceilDiv(refillMicros, MICROS_PER_SECOND)));
        }
        this.policy = String.join(", ", members);
    }

    /** The fields of {@code limiter}. */
    public static RateLimitHeaderFields of(RateLimiter limiter) {
        return new RateLimitHeaderFields(limiter);
    }

    /**
     * Whether these fields describe the configuration {@code limiter} decides by now; after a retune,
     * they must be made again.
     */
    public boolean isCurrent(RateLimiter limiter) {
        return limiter.config() == config;
    }

    /**
     * The fields of {@code limiter} as it decides now: {@code fields} when they still describe it, else
     * new ones (none made yet, or the limiter was retuned since).
     */
    public static RateLimitHeaderFields current(@Nullable RateLimitHeaderFields fields, RateLimiter limiter) {
        return (fields != null && fields.isCurrent(limiter)) ? fields : of(limiter);
    }

    /** The value of {@code RateLimit-Policy}: every limit of the limiter. */
    public String policy() {
        return policy;
    }

    /** The value of {@code RateLimit} after {@code decision}. */
    public String rateLimit(Decision decision) {
        if (decision.rejected() && !decision.neverAllowed()) {
            // A rejection that no limit made (the failure policy's deny) names none: report the limit as for an allowed call.
            int violated = (decision.violatedLimit() != null) ? limits.indexOf(decision.violatedLimit()) : -1;
            return member((violated >= 0) ? violated : reported(decision), decision.remaining(), retryAfterSeconds(decision.retryAfter()));
        }
        // A request that can never pass has no retry time: report the quota like an allowed one.
        return member(reported(decision), decision.remaining(), ceilDiv(micros(decision.limitResetAfter()), MICROS_PER_SECOND));
    }

    private String member(int limit, long remaining, long seconds) {
        return quotedNames[limit] + ";r=" + remaining + ";t=" + seconds;
    }

    /**
     * The limit whose remaining permits and reset a decision reports: the one whose capacity it reports
     * (the first such, should two limits of a bucket algorithm share a burst: the decision does not say).
     */
    private int reported(Decision decision) {
        long capacity = decision.limit();
        for (int i = 0; i < capacities.length; i++) {
            if (capacities[i] == capacity) {
                return i;
            }
        }
        return 0;
    }

    /** Whole seconds, rounded up and at least 1, so a client never retries too early. */
    public static long retryAfterSeconds(Duration retryAfter) {
        long seconds = retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }

    /** A limit as people write it, such as "5/10s", "1000/1h" or "5000/1mo". */
    public static String describe(LimitSpec limit) {
        return limit.limit() + "/" + window(limit);
    }

    /** A limit's window as configured: a calendar window by its unit (1d, 1w, 1mo), another one as {@link #window(Duration)}. */
    static String window(LimitSpec limit) {
        if (limit.calendar() == null) {
            return window(limit.window());
        }
        return switch (limit.calendar().unit()) {
            case DAY -> "1d";
            case WEEK -> "1w";
            case MONTH -> "1mo";
        };
    }

    /** A window in its largest whole unit: 1h, 90s, 1500ms, 250us. */
    static String window(Duration window) {
        long micros = micros(window);
        long[] sizes = { 86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L, 1L };
        String[] units = { "d", "h", "m", "s", "ms", "us" };
        for (int i = 0; i < sizes.length; i++) {
            if (micros % sizes[i] == 0) {
                return (micros / sizes[i]) + units[i];
            }
        }
        throw new IllegalStateException("unreachable");
    }

    /** A structured-field string: quoted, with '"' and '\' escaped. */
    static String string(String text) {
        StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\');
            }
            quoted.append((c >= 0x20 && c < 0x7f) ? c : '?');
        }
        return quoted.append('"').toString();
    }

    private static long micros(Duration duration) {
        return duration.getSeconds() * MICROS_PER_SECOND + duration.getNano() / 1_000L;
    }

    private static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }

    private static long ceilDiv(BigInteger dividend, long divisor) {
        BigInteger[] qr = dividend.divideAndRemainder(BigInteger.valueOf(divisor));
        return qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
    }
}

package dev.limiter.outgoing.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

import dev.limiter.RateLimiterConfig;

import org.springframework.http.HttpHeaders;

/**
 * What an upstream's answer says about its quota: how long the caller must hold before calling again.
 * <ul>
 * <li>429 or 503 with {@code Retry-After}, in seconds or as an HTTP date (counted from the answer's
 * {@code Date} when it has one);</li>
 * <li>any answer whose {@code RateLimit} field (draft-ietf-httpapi-ratelimit-headers, such as
 * {@code "default";r=0;t=30}, or the older {@code limit=10, remaining=0, reset=30}) or
 * {@code RateLimit-Remaining: 0} with {@code RateLimit-Reset} says the quota is spent: until its reset.</li>
 * </ul>
 * A hold is at most a day ({@link RateLimiterConfig#MAX_WAIT}); anything the answer does not say clearly
 * is no hold.
 */
public final class UpstreamHolds {

    private UpstreamHolds() {
    }

    /** The hold the answer asks for; zero for none. */
    public static Duration of(int status, HttpHeaders headers, Instant now) {
        Duration hold = Duration.ZERO;
        if (status == 429 || status == 503) {
            hold = retryAfter(headers.getFirst(HttpHeaders.RETRY_AFTER), headers.getFirst(HttpHeaders.DATE), now);
        }
        hold = max(hold, rateLimitFields(headers));
        return hold.compareTo(RateLimiterConfig.MAX_WAIT) > 0 ? RateLimiterConfig.MAX_WAIT : hold;
    }

    static Duration retryAfter(String value, String date, Instant now) {
        if (value == null || value.isBlank()) {
            return Duration.ZERO;
        }
        String trimmed = value.trim();
        long seconds = seconds(trimmed);
        if (seconds >= 0) {
            return Duration.ofSeconds(seconds);
        }
        try {
            Instant at = ZonedDateTime.parse(trimmed, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Instant from = now;
            if (date != null) {
                from = ZonedDateTime.parse(date.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            }
            Duration left = Duration.between(from, at);
            return left.isNegative() ? Duration.ZERO : left;
        }
        catch (DateTimeParseException ex) {
            return Duration.ZERO;
        }
    }

    /** The longest reset among the RateLimit fields' members whose remaining is 0. */
    static Duration rateLimitFields(HttpHeaders headers) {
        Duration hold = Duration.ZERO;
        for (String field : headers.getOrEmpty("RateLimit")) {
            // Members of a list: '"name";r=0;t=30' (structured fields), or 'limit=10, remaining=0, reset=30' (one policy).
            long remaining = -1;
            long reset = -1;
            for (String item : field.split("[,;]")) {
                int eq = item.indexOf('=');
                if (eq < 0) {
                    if (item.trim().startsWith("\"")) {
                        hold = max(hold, spent(remaining, reset));
                        remaining = -1;
                        reset = -1;
                    }
                    continue;
                }
                String name = item.substring(0, eq).trim();
                long number = seconds(item.substring(eq + 1).trim());
                if (name.equals("r") || name.equals("remaining")) {
                    remaining = number;
                }
                else if (name.equals("t") || name.equals("reset")) {
                    reset = number;
                }
            }
            hold = max(hold, spent(remaining, reset));
        }
        long remaining = seconds(String.valueOf(headers.getFirst("RateLimit-Remaining")).trim());
        long reset = seconds(String.valueOf(headers.getFirst("RateLimit-Reset")).trim());
        return max(hold, spent(remaining, reset));
    }

    private static Duration spent(long remaining, long reset) {
        return (remaining == 0 && reset > 0) ? Duration.ofSeconds(reset) : Duration.ZERO;
    }

    /** A non-negative whole number, or -1. */
    private static long seconds(String text) {
        if (text.isEmpty() || text.length() > 12) {
            return -1;
        }
        for (int i = 0; i < text.length(); i++) {
            if (!Character.isDigit(text.charAt(i))) {
                return -1;
            }
        }
        return Long.parseLong(text);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}

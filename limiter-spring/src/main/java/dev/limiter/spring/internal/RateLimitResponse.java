package dev.limiter.spring.internal;

/**
 * The HTTP response a limited call's {@code RateLimit-Policy} and {@code RateLimit} header fields go
 * to, when the decision comes later than the call, on another thread: found when the call is made
 * (a servlet request) or subscribed to (a WebFlux exchange).
 */
@FunctionalInterface
public interface RateLimitResponse {

    /** No response: calls outside HTTP requests, or header fields turned off. */
    RateLimitResponse NONE = (policy, rateLimit) -> {
    };

    /** Sets both fields, unless the response is already committed. */
    void setHeaderFields(String policy, String rateLimit);
}

package dev.limiter.spring.internal;

import dev.limiter.Decision;

import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The response of the servlet request being handled on this thread, if any. Loaded only when the
 * Servlet API and Spring Web are present.
 */
public final class CurrentServletResponse {

    private CurrentServletResponse() {
    }

    /**
     * Sets the header fields of {@code decision} on the current response; outside a servlet request
     * nothing happens, and their values are not even built.
     */
    public static void setHeaders(RateLimitHeaderFields fields, Decision decision) {
        HttpServletResponse response = current();
        if (response != null) {
            setHeaders(response, fields.policy(), fields.rateLimit(decision));
        }
    }

    /**
     * The current response, kept for a decision that comes later on another thread (asynchronous
     * methods, which Spring MVC answers once they complete); {@link RateLimitResponse#NONE} outside
     * a servlet request.
     */
    public static RateLimitResponse capture() {
        HttpServletResponse response = current();
        return (response != null) ? of(response) : RateLimitResponse.NONE;
    }

    /** {@code response}, as where header fields go. */
    public static RateLimitResponse of(HttpServletResponse response) {
        return (policy, rateLimit) -> setHeaders(response, policy, rateLimit);
    }

    private static @Nullable HttpServletResponse current() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getResponse() : null;
    }

    private static void setHeaders(HttpServletResponse response, String policy, String rateLimit) {
        if (!response.isCommitted()) {
            response.setHeader(RateLimitHeaderFields.RATE_LIMIT_POLICY, policy);
            response.setHeader(RateLimitHeaderFields.RATE_LIMIT, rateLimit);
        }
    }
}

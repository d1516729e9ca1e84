package dev.limiter.autoconfigure;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The response of the servlet request being handled on this thread, if any. Loaded only when the
 * Servlet API and Spring Web are present.
 */
final class CurrentServletResponse {

    private CurrentServletResponse() {
    }

    /** Sets the header fields on the current response; outside a servlet request nothing happens. */
    static void setHeaders(String policy, String rateLimit) {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (attributes instanceof ServletRequestAttributes servlet) {
            HttpServletResponse response = servlet.getResponse();
            if (response != null && !response.isCommitted()) {
                response.setHeader(RateLimitHeaderFields.RATE_LIMIT_POLICY, policy);
                response.setHeader(RateLimitHeaderFields.RATE_LIMIT, rateLimit);
            }
        }
    }
}

package dev.limiter.spring.internal.web;

import java.io.IOException;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.spring.web.RateLimitExceededHandler;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Servlet filter applying {@link RateLimitRules} ({@code limiter.rules}) to each request, before
 * Spring MVC handles it: a request a rule rejects never reaches its handler. Its rejection is
 * answered by Spring MVC's exception handling ({@link HandlerExceptionResolver}), so as for a
 * {@code @RateLimited} method by {@link RateLimitExceededHandler} (429, {@code Retry-After},
 * RateLimit fields, problem detail; 400 for a missing key), unless an {@code @ExceptionHandler} of
 * the application answers it.
 * <p>
 * Ordered by default just after Spring Security's filter ({@link #DEFAULT_ORDER}), so that
 * {@code #principal} is the authenticated user and requests that security turns away take no permits.
 * Error and asynchronous dispatches are not limited again.
 */
public class RateLimitRuleFilter extends OncePerRequestFilter implements Ordered {

    /**
     * Default order: after Spring Security's filter, which Spring Boot orders at -100
     * ({@code spring.security.filter.order}), and after the filters wrapping the request (at most 0
     * is reserved for those ahead of security).
     */
    public static final int DEFAULT_ORDER = -90;

    /** Answers a rejection when Spring MVC's exception handling does not. */
    private static final RateLimitExceededHandler PLAIN = new RateLimitExceededHandler();

    private final RateLimitRules rules;

    private final HandlerExceptionResolver exceptionResolver;

    private int order = DEFAULT_ORDER;

    /**
     * @param rules the rules to apply
     * @param exceptionResolver answers rejected requests; Spring MVC's ({@code handlerExceptionResolver})
     *     turns them into the answer of {@link RateLimitExceededHandler} or of the application's own
     *     {@code @ExceptionHandler}
     */
    public RateLimitRuleFilter(RateLimitRules rules, HandlerExceptionResolver exceptionResolver) {
        this.rules = rules;
        this.exceptionResolver = exceptionResolver;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return rules.isEmpty();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            rules.admit(request, response);
        }
        catch (RateLimitExceededException | MissingRateLimitKeyException ex) {
            reject(request, response, ex);
            return;
        }
        chain.doFilter(request, response);
    }

    private void reject(HttpServletRequest request, HttpServletResponse response, RuntimeException ex) {
        ModelAndView answered = exceptionResolver.resolveException(request, response, null, ex);
        if (answered == null && !response.isCommitted()) {
            // Nothing answered it (no Spring MVC): the status and header fields, without a body.
            ResponseEntity<ProblemDetail> plain = (ex instanceof RateLimitExceededException rejected)
                    ? PLAIN.handleRateLimitExceeded(rejected) : PLAIN.handleMissingKey((MissingRateLimitKeyException) ex);
            response.setStatus(plain.getStatusCode().value());
            plain.getHeaders().forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
        }
    }

    @Override
    public int getOrder() {
        return order;
    }

    /** Sets the order among the servlet filters; {@link #DEFAULT_ORDER} by default. */
    public void setOrder(int order) {
        this.order = order;
    }
}

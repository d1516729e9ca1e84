package dev.limiter.spring;

import org.jspecify.annotations.Nullable;

/**
 * Computes the rate limit key of a call in code, instead of a {@code key} expression: a bean named
 * by {@link RateLimited#keyResolver()}. Called once per call (for a reactive method, once per
 * subscription, in the subscriber's context); a null or empty result is a missing key, handled as
 * {@code limiter.on-missing-key} says.
 *
 * <pre>{@code
 * @Bean
 * KeyResolver apiKeyOrIp() {
 *     return (call) -> (call.request() instanceof HttpServletRequest request && request.getHeader("X-Api-Key") != null)
 *             ? "key:" + request.getHeader("X-Api-Key") : "ip:" + call.clientIp();
 * }
 * }</pre>
 */
@FunctionalInterface
public interface KeyResolver {

    /**
     * @param call the method called, its arguments and the request it serves
     * @return the key the call is limited under; null or empty when it has none
     */
    @Nullable String resolve(KeyContext call);
}

package dev.limiter.spring;

import java.security.Principal;

import org.jspecify.annotations.Nullable;

/**
 * What a call knows of the HTTP request it serves, for {@code #request}, {@code #principal} and
 * {@code #clientIp} and for a {@link KeyResolver}. Found only for methods that use it.
 *
 * @param request the servlet request ({@code HttpServletRequest}) or WebFlux request ({@code ServerHttpRequest}); null outside one
 * @param principal who is authenticated; null for nobody (or an anonymous Spring Security authentication)
 * @param clientIp the client's normalized address, see {@link ClientIpResolver}; null outside a request
 */
record CallRequest(@Nullable Object request, @Nullable Principal principal, @Nullable String clientIp) {

    static final CallRequest NONE = new CallRequest(null, null, null);
}

package dev.limiter.spring.internal;

import java.security.Principal;

import dev.limiter.spring.web.ClientIpResolver;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * What a limited call knows of the HTTP request it serves, for {@code #request}, {@code #principal} and
 * {@code #clientIp} and for a {@link dev.limiter.spring.KeyResolver}; found, with whichever web stack is
 * present, only for methods and rules that use it.
 *
 * @param request the servlet request ({@code HttpServletRequest}) or WebFlux request ({@code ServerHttpRequest}); null outside one
 * @param principal who is authenticated; null for nobody (or an anonymous Spring Security authentication)
 * @param clientIp the client's normalized address, see {@link ClientIpResolver}; null outside a request
 */
public record ServedRequest(@Nullable Object request, @Nullable Principal principal, @Nullable String clientIp) {

    /** No request: a call outside HTTP, or one whose key does not look at it. */
    public static final ServedRequest NONE = new ServedRequest(null, null, null);

    /** The variable holding the HTTP request the call serves. */
    public static final String REQUEST = "request";

    /** The variable holding who is authenticated. */
    public static final String PRINCIPAL = "principal";

    /** The variable holding the client's address. */
    public static final String CLIENT_IP = "clientIp";

    /** Whether the Servlet API and Spring Web are present, so that a servlet request (and its response) can be found. */
    public static final boolean SERVLET_PRESENT = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", null)
            && ClassUtils.isPresent("org.springframework.web.context.request.ServletRequestAttributes", null);

    /**
     * The servlet request this thread handles, else only Spring Security's principal, if any.
     *
     * @param clientIps how the client's address is found; null when nothing reads it, which leaves it null
     */
    public static ServedRequest ofThisThread(@Nullable ClientIpResolver clientIps) {
        return SERVLET_PRESENT ? CurrentServletRequest.get(clientIps) : outsideRequest();
    }

    /** A call outside any request: only Spring Security may know who makes it. */
    public static ServedRequest outsideRequest() {
        return SecurityPrincipal.PRESENT ? new ServedRequest(null, SecurityPrincipal.ofThisThread(), null) : NONE;
    }
}

package dev.limiter.spring.internal;

import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

import dev.limiter.spring.web.ClientIpResolver;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The servlet request being handled on this thread, as a {@link ServedRequest}. Loaded only when the
 * Servlet API and Spring Web are present.
 */
public final class CurrentServletRequest {

    private CurrentServletRequest() {
    }

    /**
     * The request of this thread; {@link ServedRequest#NONE} (with Spring Security's principal, if any) outside one.
     *
     * @param clientIps how the client's address is found; null when nothing reads it, which leaves it null
     */
    public static ServedRequest get(@Nullable ClientIpResolver clientIps) {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (!(attributes instanceof ServletRequestAttributes servlet)) {
            return ServedRequest.outsideRequest();
        }
        return of(servlet.getRequest(), clientIps);
    }

    /**
     * {@code request} as a {@link ServedRequest}: who is authenticated on this thread, else the request's user principal.
     *
     * @param clientIps how the client's address is found; null when nothing reads it, which leaves it null
     */
    public static ServedRequest of(HttpServletRequest request, @Nullable ClientIpResolver clientIps) {
        Principal principal = SecurityPrincipal.PRESENT ? SecurityPrincipal.ofThisThread() : null;
        if (principal == null) {
            principal = request.getUserPrincipal();
        }
        if (clientIps == null) {
            // Parsing the forwarded addresses is most of what finding the request costs: only when read.
            return new ServedRequest(request, principal, null);
        }
        Enumeration<String> values = request.getHeaders(clientIps.headerName());
        List<String> forwarded = (values != null) ? Collections.list(values) : List.of();
        return new ServedRequest(request, principal, clientIps.resolve(request.getRemoteAddr(), forwarded));
    }
}

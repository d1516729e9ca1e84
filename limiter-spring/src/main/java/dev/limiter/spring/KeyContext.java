package dev.limiter.spring;

import java.lang.reflect.Method;
import java.security.Principal;

import org.jspecify.annotations.Nullable;

/**
 * One call of a limited method, as a {@link KeyResolver} or {@link PlanResolver} sees it; for a
 * {@link PlanResolver}, also one request limited by a rule of {@code limiter.rules} or a gateway route,
 * which has a request but no method.
 */
public final class KeyContext {

    private final @Nullable Method method;

    private final @Nullable Object[] arguments;

    private final @Nullable Object target;

    private final @Nullable Object request;

    private final @Nullable Principal principal;

    private final @Nullable String clientIp;

    /**
     * A call as the interception sees it; public so that a resolver can be tested with calls of its own.
     *
     * @param method the limited method; null for a request limited by a rule
     * @param arguments the call's arguments
     * @param target the object called
     * @param request the HTTP request the call serves, null outside one
     * @param principal who is authenticated, null for nobody
     * @param clientIp the client's address, null outside a request
     */
    public KeyContext(@Nullable Method method, @Nullable Object[] arguments, @Nullable Object target, @Nullable Object request,
            @Nullable Principal principal, @Nullable String clientIp) {
        this.method = method;
        this.arguments = arguments;
        this.target = target;
        this.request = request;
        this.principal = principal;
        this.clientIp = clientIp;
    }

    /** The limited method, as declared on the target's class; null for a request limited by a rule or a gateway route. */
    public @Nullable Method method() {
        return method;
    }

    /** The call's arguments (the array itself: do not change it). */
    public @Nullable Object[] arguments() {
        return arguments;
    }

    /** The object called. */
    public @Nullable Object target() {
        return target;
    }

    /**
     * The HTTP request the call serves: a {@code jakarta.servlet.http.HttpServletRequest} in Spring
     * MVC, an {@code org.springframework.http.server.reactive.ServerHttpRequest} in WebFlux; null
     * outside a request.
     */
    public @Nullable Object request() {
        return request;
    }

    /**
     * Who is authenticated: Spring Security's {@code Authentication} when it has one (anonymous
     * counts as none), else the request's user principal; null for nobody.
     */
    public @Nullable Principal principal() {
        return principal;
    }

    /** The client's address, as for {@code #clientIp}; null outside a request. */
    public @Nullable String clientIp() {
        return clientIp;
    }
}

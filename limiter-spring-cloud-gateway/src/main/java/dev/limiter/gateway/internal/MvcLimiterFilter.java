package dev.limiter.gateway.internal;

import java.net.URI;
import java.util.Objects;
import java.util.function.Function;

import dev.limiter.RateLimitExceededException;
import dev.limiter.spring.MissingRateLimitKeyException;
import dev.limiter.spring.internal.web.RuleDecisions;
import dev.limiter.spring.web.RateLimitExceededHandler;

import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.gateway.server.mvc.common.MvcUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.function.HandlerFilterFunction;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The Server MVC gateway's Limiter filter function of one route: the rule of the route, made on its first
 * request from the application's {@link GatewayLimits} (a filter function of a YAML route is made
 * before the beans it needs), applied blocking on the request's thread as the servlet filter of
 * {@code limiter.rules} applies rules. A rejection is answered by the application's
 * {@link RateLimitExceededHandler}. While {@code limiter.enabled} is false, every request goes on unlimited.
 */
public final class MvcLimiterFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

    /** The request attribute holding the key a key function gave, for the rule's key expression to read. */
    private static final String KEY_ATTRIBUTE = MvcLimiterFilter.class.getName() + ".key";

    /** What Prepared is while limiter.enabled is false: nothing to apply. */
    private static final Prepared UNLIMITED = new Prepared(null, null);

    private final String limiter;

    private final @Nullable String key;

    private final @Nullable Function<ServerRequest, @Nullable String> keyFunction;

    private final @Nullable String cost;

    private volatile @Nullable Prepared prepared;

    public MvcLimiterFilter(String limiter, @Nullable String key, @Nullable String cost) {
        this.limiter = limiter;
        this.key = key;
        this.keyFunction = null;
        this.cost = cost;
    }

    /**
     * A filter whose requests' keys {@code keyFunction} gives; the rule reads it from a request attribute,
     * so that a missing one follows limiter.on-missing-key as a SpEL key's does.
     */
    public MvcLimiterFilter(String limiter, Function<ServerRequest, @Nullable String> keyFunction, @Nullable String cost) {
        this.limiter = limiter;
        this.key = "#request.getAttribute('" + KEY_ATTRIBUTE + "')";
        this.keyFunction = Objects.requireNonNull(keyFunction, "The Limiter filter function's key function must not be null: "
                + "give one returning each request's key, or call limiter(name) for one key shared by every request");
        this.cost = cost;
    }

    @Override
    public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
        Prepared route = prepared(request);
        GatewayLimits.RouteRule rule = route.rule();
        RateLimitExceededHandler handler = route.handler();
        if (rule == null || handler == null) {
            return next.handle(request);
        }
        HttpServletResponse response = currentResponse();
        RuleDecisions decisions = rule.decisions(response::setHeader);
        try {
            if (keyFunction != null) {
                request.servletRequest().setAttribute(KEY_ATTRIBUTE, keyFunction.apply(request));
            }
            rule.rules().admit(request.servletRequest(), response, decisions);
        }
        catch (RateLimitExceededException ex) {
            return answer(request, handler.handleRateLimitExceeded(ex));
        }
        catch (MissingRateLimitKeyException ex) {
            return answer(request, handler.handleMissingKey(ex));
        }
        finally {
            if (keyFunction != null) {
                request.servletRequest().removeAttribute(KEY_ATTRIBUTE);
            }
        }
        return next.handle(request);
    }

    private static ServerResponse answer(ServerRequest request, ResponseEntity<ProblemDetail> answer) {
        ServerResponse.BodyBuilder response = ServerResponse.status(answer.getStatusCode()).headers((headers) -> headers.addAll(answer.getHeaders()));
        ProblemDetail body = answer.getBody();
        if (body == null) {
            return response.build();
        }
        // As Spring MVC answers a ProblemDetail from a controller: application/problem+json, and the request's
        // path as its instance unless the handler named one (a ServerResponse body does neither by itself).
        if (body.getInstance() == null) {
            body.setInstance(URI.create(request.servletRequest().getRequestURI()));
        }
        return response.contentType(MediaType.APPLICATION_PROBLEM_JSON).body(body);
    }

    private Prepared prepared(ServerRequest request) {
        Prepared made = prepared;
        if (made == null) {
            synchronized (this) {
                made = prepared;
                if (made == null) {
                    ApplicationContext context = MvcUtils.getApplicationContext(request);
                    // limiter.enabled=false: the route runs unlimited, as @RateLimited methods then do (no GatewayLimits exists).
                    if (!context.getEnvironment().getProperty("limiter.enabled", Boolean.class, true)) {
                        prepared = UNLIMITED;
                        return UNLIMITED;
                    }
                    Object routeId = request.attribute(MvcUtils.GATEWAY_ROUTE_ID_ATTR).orElse("");
                    GatewayLimits limits = context.getBean(GatewayLimits.class);
                    RateLimitExceededHandler handler = context.getBeanProvider(RateLimitExceededHandler.class)
                        .getIfAvailable(RateLimitExceededHandler::new);
                    made = new Prepared(limits.rule("spring.cloud.gateway.server.webmvc.routes[" + routeId + "].filters[Limiter]", limiter, key,
                            cost), handler);
                    prepared = made;
                }
            }
        }
        return made;
    }

    private static HttpServletResponse currentResponse() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        HttpServletResponse response = (attributes instanceof ServletRequestAttributes servlet) ? servlet.getResponse() : null;
        if (response == null) {
            throw new IllegalStateException("The Limiter filter runs only within a servlet request handled by Spring MVC's DispatcherServlet");
        }
        return response;
    }

    @Override
    public String toString() {
        return "Limiter[limiter=" + limiter + ", key=" + ((keyFunction != null) ? keyFunction : key) + ", cost=" + cost + "]";
    }

    /** The route's rule and who answers its rejections; both null while limiter.enabled is false. */
    private record Prepared(GatewayLimits.@Nullable RouteRule rule, @Nullable RateLimitExceededHandler handler) {
    }
}

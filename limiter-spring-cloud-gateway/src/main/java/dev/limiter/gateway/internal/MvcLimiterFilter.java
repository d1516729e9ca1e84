package dev.limiter.gateway.internal;

import java.net.URI;

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
 * {@link RateLimitExceededHandler}.
 */
public final class MvcLimiterFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {

    private final String limiter;

    private final @Nullable String key;

    private final @Nullable String cost;

    private volatile @Nullable Prepared prepared;

    public MvcLimiterFilter(String limiter, @Nullable String key, @Nullable String cost) {
        this.limiter = limiter;
        this.key = key;
        this.cost = cost;
    }

    @Override
    public ServerResponse filter(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
        Prepared route = prepared(request);
        HttpServletResponse response = currentResponse();
        RuleDecisions decisions = route.rule().decisions(response::setHeader);
        try {
            route.rule().rules().admit(request.servletRequest(), response, decisions);
        }
        catch (RateLimitExceededException ex) {
            return answer(request, route.handler().handleRateLimitExceeded(ex));
        }
        catch (MissingRateLimitKeyException ex) {
            return answer(request, route.handler().handleMissingKey(ex));
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
        return "Limiter[limiter=" + limiter + ", key=" + key + ", cost=" + cost + "]";
    }

    private record Prepared(GatewayLimits.RouteRule rule, RateLimitExceededHandler handler) {
    }
}

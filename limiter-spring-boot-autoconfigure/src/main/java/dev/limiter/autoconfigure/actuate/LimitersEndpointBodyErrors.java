package dev.limiter.autoconfigure.actuate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a body the {@code limiters} endpoint cannot read (malformed JSON, a list or an object as a
 * field's value) with 400 and a message saying what to send, where Spring MVC would answer 400 without
 * one. The actuator reads the body before any operation runs, so this is where it fails; requests to
 * other endpoints are left to the resolvers after this one.
 */
final class LimitersEndpointBodyErrors implements HandlerExceptionResolver, Ordered {

    static final String MESSAGE = "The body is not a JSON object whose fields hold text or numbers: send one such as "
            + "{\"limit\": 20, \"window\": \"10s\"} to retune or {\"permits\": 1} to refund; several limits go as one text, "
            + "{\"limits\": \"10/1s, 1000/1h\"}";

    /** The path of the endpoint under the servlet, such as /actuator/limiters; null while it is not exposed over HTTP. */
    private final Supplier<@Nullable String> endpointPath;

    LimitersEndpointBodyErrors(Supplier<@Nullable String> endpointPath) {
        this.endpointPath = endpointPath;
    }

    @Override
    public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response, @Nullable Object handler,
            Exception ex) {
        String path = endpointPath.get();
        Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
        if (!(ex instanceof HttpMessageNotReadableException) || path == null || !(pattern instanceof String matched)
                || !(matched.equals(path) || matched.startsWith(path + "/"))) {
            return null;
        }
        try {
            response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
            response.setContentType(MediaType.APPLICATION_JSON_VALUE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write("{\"status\":400,\"error\":\"Bad Request\",\"message\":\"" + MESSAGE.replace("\"", "\\\"") + "\"}");
            return new ModelAndView();
        }
        catch (IOException writeFailed) {
            return null;
        }
    }

    /** Before Spring MVC's own resolvers, which would answer without a message. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 10;
    }

}

package dev.limiter.autoconfigure.actuate;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.limiter.RateLimiterRegistry;
import dev.limiter.autoconfigure.LimiterProperties;
import dev.limiter.autoconfigure.internal.DefinedLimiters;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.invoke.MissingParametersException;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.invoke.ParameterMappingException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;

/**
 * Guards the operations of the {@code limiters} endpoint as the actuator invokes them (HTTP, JMX): those
 * changing limits or state are refused unless limiter.endpoint.write-operations.enabled is set; over
 * HTTP, a body field the operation does not know or a null is refused rather than ignored, and every
 * refusal or 404 carries a message saying what to send instead. The actuator only hands operations the
 * values of their own parameters, so this is the one place that still sees the whole request.
 */
final class LimitersEndpointRequests implements OperationInvokerAdvisor {

    static final String WRITE_OPERATIONS_PROPERTY = "limiter.endpoint.write-operations.enabled";

    private static final EndpointId LIMITERS = EndpointId.of("limiters");

    private final LimiterProperties properties;

    private final RateLimiterRegistry registry;

    private final DefinedLimiters definitions;

    LimitersEndpointRequests(LimiterProperties properties, RateLimiterRegistry registry, DefinedLimiters definitions) {
        this.properties = properties;
        this.registry = registry;
        this.definitions = definitions;
    }

    @Override
    public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
            OperationInvoker invoker) {
        if (!LIMITERS.equals(endpointId)) {
            return invoker;
        }
        List<String> fields = parameters.stream().filter((parameter) -> parameter.getAnnotation(Selector.class) == null)
            .map(OperationParameter::getName)
            .toList();
        Set<String> accepted = Set.copyOf(parameters.stream().map(OperationParameter::getName).toList());
        return (context) -> invoke(context, operationType, fields, accepted, invoker);
    }

    private @Nullable Object invoke(InvocationContext context, OperationType type, List<String> fields, Set<String> accepted,
            OperationInvoker invoker) {
        // Web invocations resolve the server namespace; JMX passes every parameter, nulls included.
        boolean web = context.canResolve(WebServerNamespace.class);
        if (type != OperationType.READ && !properties.getEndpoint().getWriteOperations().isEnabled()) {
            return refuse(web, 403, "Forbidden", "The limiters endpoint's write operations (retune, reset, refund) are off: set "
                    + WRITE_OPERATIONS_PROPERTY + "=true to allow them, and let only operators reach the endpoint "
                    + "(a management port on an internal address, or Spring Security)");
        }
        if (web && type != OperationType.READ) {
            for (Map.Entry<String, Object> argument : context.getArguments().entrySet()) {
                if (!accepted.contains(argument.getKey())) {
                    return refuse(true, 400, "Bad Request", "Unknown field '" + argument.getKey() + "' (value " + shown(argument.getValue())
                            + "): " + (fields.isEmpty() ? "send no body" : "send only " + String.join(", ", fields)));
                }
                if (argument.getValue() == null && fields.contains(argument.getKey())) {
                    return refuse(true, 400, "Bad Request", "Field '" + argument.getKey() + "' is null: send a value, or leave the field out"
                            + ("permits".equals(argument.getKey()) ? "" : " to keep the one in force"));
                }
            }
        }
        Object result;
        try {
            result = invoker.invoke(context);
        }
        catch (ParameterMappingException ex) {
            return refuse(web, 400, "Bad Request", "Field '" + ex.getParameter().getName() + "' has value " + shown(ex.getValue())
                    + ", which is not " + kind(ex.getParameter().getType()) + ": send " + kind(ex.getParameter().getType()) + " or leave "
                    + "the field out");
        }
        catch (MissingParametersException ex) {
            // Spring Boot always gives the reason ("Missing parameters: ..."); the fallback is for the nullness check only.
            return refuse(web, 400, "Bad Request", Objects.requireNonNullElse(ex.getReason(), "Missing parameters"));
        }
        if (web && (result == null || result instanceof WebEndpointResponse<?> response && response.getStatus() == 404
                && response.getBody() == null)) {
            return new WebEndpointResponse<>(new ErrorDescriptor(404, "Not Found", notFound(context.getArguments())), 404);
        }
        return result;
    }

    private static Object refuse(boolean web, int status, String error, String message) {
        if (!web) {
            throw new InvalidEndpointRequestException(message, message);
        }
        return new WebEndpointResponse<>(new ErrorDescriptor(status, error, message), status);
    }

    /** Why nothing was found: the limiter, the plan or the key of the request. */
    private String notFound(Map<String, Object> arguments) {
        String name = String.valueOf(arguments.get("name"));
        Object given = arguments.get("path");
        String[] path = (given instanceof String[] segments) ? segments : (given != null) ? new String[] { given.toString() } : new String[0];
        Set<String> plans = registry.plans(name).keySet();
        if (properties.getConcurrencyLimits().containsKey(name)) {
            return "'" + name + "' is a concurrency limit (limiter.concurrency-limits): its slots come back when calls end or their lease runs "
                    + "out, so there is nothing to reset, refund or retune; GET /actuator/limiters/" + name + "/{key} reads a key's calls in flight";
        }
        if (registry.find(name).isEmpty() && plans.isEmpty()) {
            return "No limiter named '" + name + "': the limiters are " + registry.names()
                    + (properties.getConcurrencyLimits().isEmpty() ? "" : ", the concurrency limits " + properties.getConcurrencyLimits().keySet())
                    + " (GET /actuator/limiters describes them)";
        }
        if (String.join("", path).isEmpty()) {
            return "No key given: send the key after the limiter's name, such as /actuator/limiters/" + name + "/alice";
        }
        if (plans.isEmpty()) {
            return "Nothing found for key '" + String.join("/", path) + "' of limiter '" + name + "'";
        }
        if (path.length < 2) {
            return "Limiter '" + name + "' has plans, each counting its keys apart: ask /actuator/limiters/" + name + "/{plan}/"
                    + path[0] + " with {plan} one of " + plans;
        }
        if (definitions.unlimitedPlans(name).contains(path[0])) {
            return "Plan '" + path[0] + "' of limiter '" + name + "' is unlimited: its keys are never counted, so they have no state";
        }
        return "Limiter '" + name + "' has no plan '" + path[0] + "': its plans are " + plans;
    }

    private static String shown(@Nullable Object value) {
        if (value instanceof String[] values) {
            return Arrays.toString(values);
        }
        return (value instanceof String) ? "\"" + value + "\"" : String.valueOf(value);
    }

    private static String kind(Class<?> type) {
        if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
            return "a whole number";
        }
        return "a " + type.getSimpleName();
    }

}

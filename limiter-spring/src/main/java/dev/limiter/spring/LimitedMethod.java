package dev.limiter.spring;

import java.lang.reflect.Method;
import java.security.Principal;
import java.util.Set;
import java.util.function.Supplier;

import dev.limiter.Decision;
import dev.limiter.Outcome;
import dev.limiter.RateLimitExceededException;
import dev.limiter.RateLimiter;

import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * A {@code @RateLimited} method ready to limit: its limiter and its key and cost expressions,
 * parsed once at startup and evaluated per call.
 */
final class LimitedMethod {

    private final RateLimiter limiter;

    /** The limiter that decides, reporting rejections as what becomes of them here (fallback, shadow). */
    private final RateLimiter deciding;

    /** The target class's method, whose parameter names the expressions were checked against. */
    private final Method method;

    private final @Nullable Expression key;

    private final @Nullable Expression cost;

    private final String site;

    private final ParameterNameDiscoverer parameterNames;

    private final @Nullable BeanResolver beanResolver;

    private final MissingKeyPolicy onMissingKey;

    private final boolean shadow;

    private final @Nullable FallbackMethod fallback;

    /** Made again when the limiter is retuned. */
    private volatile RateLimitHeaderFields headerFields;

    private final ReturnKind returns;

    /** The request variables (#request, #principal, #clientIp) the expressions use, by name. */
    private final Set<String> requestVariables;

    /** The bean computing keys instead of the key expression; null for none. */
    private final @Nullable Supplier<KeyResolver> keyResolver;

    /** How the key resolver is named, for messages. */
    private final String keyResolverName;

    /**
     * @param method the most specific method on the target class: an interface method (JDK proxy)
     *     may name its parameters differently
     * @param key key expression, or null for one key shared by all calls
     * @param cost cost expression, or null for a cost of 1
     * @param shadow whether rejected calls proceed anyway
     * @param fallback what answers a rejected call, or null to throw
     * @param requestVariables the request variables the expressions use
     * @param keyResolver the bean computing keys instead of {@code key}, or null
     * @param keyResolverName the bean's name, for messages
     */
    LimitedMethod(RateLimiter limiter, Method method, @Nullable Expression key, @Nullable Expression cost, String site,
            ParameterNameDiscoverer parameterNames, @Nullable BeanResolver beanResolver, MissingKeyPolicy onMissingKey, boolean shadow,
            @Nullable FallbackMethod fallback, Set<String> requestVariables, @Nullable Supplier<KeyResolver> keyResolver,
            String keyResolverName) {
        this.limiter = limiter;
        this.deciding = limiter.reportingRejectionsAs(shadow ? Outcome.SHADOW_REJECTED
                : (fallback != null) ? Outcome.FALLBACK : Outcome.REJECTED);
        this.method = method;
        this.key = key;
        this.cost = cost;
        this.site = site;
        this.parameterNames = parameterNames;
        this.beanResolver = beanResolver;
        this.onMissingKey = onMissingKey;
        this.shadow = shadow;
        this.fallback = fallback;
        this.headerFields = RateLimitHeaderFields.of(limiter);
        this.returns = ReturnKind.of(method, site);
        this.requestVariables = Set.copyOf(requestVariables);
        this.keyResolver = keyResolver;
        this.keyResolverName = keyResolverName;
    }

    /** Whether a call's key or cost depends on the request it serves (request variables or a key resolver). */
    boolean usesRequest() {
        return keyResolver != null || !requestVariables.isEmpty();
    }

    /** What the method returns, which decides when its calls are decided. */
    ReturnKind returns() {
        return returns;
    }

    /** The RateLimit header fields of the limiter, prepared once per configuration it decides by. */
    RateLimitHeaderFields headerFields() {
        RateLimitHeaderFields fields = headerFields;
        if (!fields.isCurrent(limiter)) {
            fields = RateLimitHeaderFields.of(limiter);
            headerFields = fields;
        }
        return fields;
    }

    RateLimiter limiter() {
        return limiter;
    }

    /** The limiter to decide calls with: the registry's limiter, reporting its rejections as what becomes of them here. */
    RateLimiter decidingLimiter() {
        return deciding;
    }

    /** Where the limit is declared, such as "@RateLimited on OrderService.list(User)", for messages. */
    String site() {
        return site;
    }

    /** Whether the limiter only observes: rejected calls proceed and no call waits. */
    boolean shadow() {
        return shadow;
    }

    /** Whether a fallback method answers rejected calls. */
    boolean hasFallback() {
        return fallback != null;
    }

    /** Answers a rejected call through the fallback method, called on the target object. */
    @Nullable Object fallback(@Nullable Object target, @Nullable Object[] args, Decision decision) throws Throwable {
        return fallback.invoke(target, args, new RateLimitExceededException(limiter.name(), decision));
    }

    /** The key a call is limited under and the permits it takes. */
    record Call(String key, long cost) {
    }

    /**
     * Evaluates the key and cost of one call, with one evaluation context for both.
     *
     * @param request the request the call serves, {@link CallRequest#NONE} when the method does not use it
     * @return the call's key and cost; null when the call is not to be limited (missing key, skipped)
     */
    @Nullable Call call(@Nullable Object[] args, @Nullable Object target, CallRequest request) {
        EvaluationContext context = context(args, target, request);
        String key = (keyResolver != null) ? resolvedKey(args, target, request) : key(context);
        return (key != null) ? new Call(key, cost(context)) : null;
    }

    /**
     * The context one call's key and cost are evaluated in, created once per call; null when neither
     * is an expression.
     */
    private @Nullable EvaluationContext context(@Nullable Object[] args, @Nullable Object target, CallRequest request) {
        if (key == null && cost == null) {
            return null;
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, method, args, parameterNames);
        if (beanResolver != null) {
            context.setBeanResolver(beanResolver);
        }
        // Only the variables the expressions use and no parameter shadows: a parameter named "request" stays itself.
        for (String variable : requestVariables) {
            context.setVariable(variable, switch (variable) {
                case REQUEST -> request.request();
                case PRINCIPAL -> request.principal();
                case CLIENT_IP -> request.clientIp();
                default -> null;
            });
        }
        return context;
    }

    /** The variable holding the HTTP request the call serves. */
    static final String REQUEST = "request";

    /** The variable holding who is authenticated. */
    static final String PRINCIPAL = "principal";

    /** The variable holding the client's address. */
    static final String CLIENT_IP = "clientIp";

    /** The key this call is limited under; null when it is not to be limited (missing key, skipped). */
    private @Nullable String key(@Nullable EvaluationContext context) {
        if (key == null) {
            return "";
        }
        return keyOrMissing(text(key.getValue(context)), "The rate limit key " + key.getExpressionString());
    }

    private @Nullable String resolvedKey(@Nullable Object[] args, @Nullable Object target, CallRequest request) {
        String text = keyResolver.get().resolve(new KeyContext(method, args, target, request));
        return keyOrMissing(text, "The key resolver '" + keyResolverName + "'");
    }

    /** A principal stands for its name: its toString may hold details that change per session. */
    private static @Nullable String text(@Nullable Object value) {
        if (value instanceof Principal principal) {
            return principal.getName();
        }
        return (value != null) ? value.toString() : null;
    }

    private @Nullable String keyOrMissing(@Nullable String text, String source) {
        if (text != null && !text.isEmpty()) {
            return text;
        }
        return switch (onMissingKey) {
            case SKIP -> null;
            case SHARED -> "";
            case REJECT -> throw new MissingRateLimitKeyException(limiter.name(), source
                    + " of " + site + " evaluated to " + (text == null ? "null" : "an empty text")
                    + "; the call cannot be limited without it (limiter.on-missing-key=reject)");
        };
    }

    /** The permits this call takes. */
    private long cost(@Nullable EvaluationContext context) {
        if (cost == null) {
            return 1;
        }
        Object value = cost.getValue(context);
        if (value instanceof Number number && number.doubleValue() == number.longValue() && number.longValue() >= 1) {
            return number.longValue();
        }
        throw new IllegalArgumentException("The rate limit cost " + cost.getExpressionString() + " of " + site + " evaluated to " + value
                + "; it must be a whole number of at least 1");
    }
}
